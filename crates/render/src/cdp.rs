//! The DevTools protocol over the pipe Chromium opens with `--remote-debugging-pipe`
//! (it reads commands on fd 3 and writes answers and events on fd 4, each message
//! JSON ended by a NUL byte).
//!
//! Why not headless_chrome: its WebSocket reader holds the socket for a 100 ms read
//! timeout and then sleeps 100 ms, so every protocol call waited about 0.1 s, and a
//! render needs a dozen. Over the pipe a call takes a few milliseconds, and one
//! reader thread serves all the tabs of a browser (flat sessions: each message names
//! its tab's session).
//!
//! A tab's answers and events arrive on one channel, in the order Chromium sent them,
//! so that a tab runs as a single loop: a command is sent, and while its answer is
//! awaited the tab keeps handling its events (`Page.navigate` answers only once the
//! tab has itself answered the paused request for the document).

use super::lock;
use anyhow::{anyhow, bail, Result};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What Chromium sent to one session (or to the browser).
#[derive(Debug)]
pub(super) enum Message {
    /// The answer to the command with this id: its result, or the error it gave.
    Answer { id: u64, result: Result<Value> },
    /// An event, `Domain.name`, and its parameters.
    Event { method: String, params: Value },
}

/// Where the reader thread delivers messages. Dropped when the pipe closes, which is
/// how a waiting tab learns that its browser is gone.
#[derive(Default)]
struct Routes {
    /// Commands awaiting their answer: where to send it.
    waiting: HashMap<u64, Sender<Message>>,
    /// Events by session id.
    sessions: HashMap<String, Sender<Message>>,
}

/// One browser's end of the pipe.
pub(super) struct Connection {
    commands: Mutex<File>,
    routes: Arc<Mutex<Routes>>,
    next_id: AtomicU64,
    closed: Arc<AtomicBool>,
}

impl Connection {
    /// Starts reading `answers` (Chromium's fd 4) on a thread of its own; commands go
    /// to `commands` (Chromium's fd 3).
    pub(super) fn new(commands: File, answers: File) -> Result<Connection> {
        let routes = Arc::new(Mutex::new(Routes::default()));
        let closed = Arc::new(AtomicBool::new(false));
        let (reader_routes, reader_closed) = (routes.clone(), closed.clone());
        std::thread::Builder::new()
            .name("devtools-reader".into())
            .spawn(move || {
                read_messages(answers, &reader_routes);
                // Under the lock, so that no route is added after the clearing.
                let mut routes = lock(&reader_routes);
                reader_closed.store(true, Ordering::SeqCst);
                *routes = Routes::default();
            })?;
        Ok(Connection {
            commands: Mutex::new(commands),
            routes,
            next_id: AtomicU64::new(1),
            closed,
        })
    }

    /// Whether the pipe is closed: the browser is gone.
    pub(super) fn closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Sends a command to a tab's session without waiting; its answer arrives among
    /// the session's events (see [`Connection::follow`]). The id is returned.
    pub(super) fn send(&self, session: &str, method: &str, params: Value) -> Result<u64> {
        let reply = lock(&self.routes).sessions.get(session).cloned();
        let reply = reply.ok_or_else(|| anyhow!("the browser is gone"))?;
        self.send_to(Some(session), method, params, reply)
    }

    /// Sends a command and waits for its answer, at most `timeout`. Only for commands
    /// outside a tab's loop (a tab's events would wait meanwhile).
    pub(super) fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        let (reply, answers) = mpsc::channel();
        let id = self.send_to(session, method, params, reply)?;
        let deadline = Instant::now() + timeout;
        loop {
            match receive(&answers, deadline)? {
                Some(Message::Answer { id: got, result }) if got == id => {
                    return result.map_err(|e| e.context(format!("{method} failed")))
                }
                Some(_) => continue,
                None => bail!("{method}: the browser did not answer in {timeout:?}"),
            }
        }
    }

    fn send_to(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        reply: Sender<Message>,
    ) -> Result<u64> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::from(session);
        }
        let mut bytes = serde_json::to_vec(&message)?;
        bytes.push(0);
        {
            let mut routes = lock(&self.routes);
            if self.closed() {
                bail!("the browser is gone");
            }
            routes.waiting.insert(id, reply);
        }
        let written = lock(&self.commands).write_all(&bytes);
        if let Err(error) = written {
            lock(&self.routes).waiting.remove(&id);
            bail!("the browser is gone ({error})");
        }
        Ok(id)
    }

    /// The channel of `session`'s events and answers from now on. It disconnects when
    /// the browser is gone.
    pub(super) fn follow(&self, session: &str) -> Receiver<Message> {
        let (events, channel) = mpsc::channel();
        let mut routes = lock(&self.routes);
        if !self.closed() {
            routes.sessions.insert(session.to_string(), events);
        }
        channel
    }

    /// Stops routing the events of `session`.
    pub(super) fn forget(&self, session: &str) {
        lock(&self.routes).sessions.remove(session);
    }
}

/// The next message on `channel`; None when `deadline` passes first, an error when
/// the browser is gone.
pub(super) fn receive(channel: &Receiver<Message>, deadline: Instant) -> Result<Option<Message>> {
    let wait = deadline.saturating_duration_since(Instant::now());
    match channel.recv_timeout(wait) {
        Ok(message) => Ok(Some(message)),
        Err(RecvTimeoutError::Timeout) => Ok(None),
        Err(RecvTimeoutError::Disconnected) => bail!("the browser is gone"),
    }
}

/// Reads NUL-ended messages until the pipe closes, handing each to its route.
fn read_messages(answers: File, routes: &Mutex<Routes>) {
    let mut reader = BufReader::with_capacity(1 << 20, answers);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match reader.read_until(0, &mut bytes) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if bytes.last() == Some(&0) {
            bytes.pop();
        }
        let Ok(message) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        deliver(message, routes);
    }
}

fn deliver(mut message: Value, routes: &Mutex<Routes>) {
    let mut routes = lock(routes);
    if let Some(id) = message.get("id").and_then(Value::as_u64) {
        let Some(reply) = routes.waiting.remove(&id) else {
            return;
        };
        let result = match message.get("error") {
            Some(error) => Err(anyhow!(
                "{}",
                error["message"].as_str().unwrap_or("protocol error")
            )),
            None => Ok(message.get_mut("result").map_or(Value::Null, Value::take)),
        };
        let _ = reply.send(Message::Answer { id, result });
        return;
    }
    let session = message.get("sessionId").and_then(Value::as_str);
    let Some(events) = session.and_then(|session| routes.sessions.get(session)) else {
        return;
    };
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let params = message.get_mut("params").map_or(Value::Null, Value::take);
    let _ = events.send(Message::Event { method, params });
}
