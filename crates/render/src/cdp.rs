//! The DevTools protocol over the pipe Chromium opens with `--remote-debugging-pipe`
//! (it reads commands on fd 3 and writes answers and events on fd 4, each message
//! JSON ended by a NUL byte).
//!
//! Why not headless_chrome: its WebSocket reader holds the socket for a 100 ms read
//! timeout and then sleeps 100 ms, so every protocol call waited about 0.1 s, and a
//! render needs a dozen. Over the pipe a call takes a few milliseconds, and one
//! reader thread serves all the tabs of a browser (flat sessions: each message names
//! its tab's session). The messages themselves are typed in `protocol.rs`.
//!
//! A tab's answers and events arrive on one channel, in the order Chromium sent them,
//! so that a tab runs as a single loop: a command is sent, and while its answer is
//! awaited the tab keeps handling its events (`Page.navigate` answers only once the
//! tab has itself answered the paused request for the document).
//!
//! Events are read once, by the reader thread, into [`Event`]s; an answer is read
//! into its command's response by the one who waits for it. A message that cannot be
//! read is a [`Malformed`] error for whoever it was meant for (everyone, when it is
//! not even JSON), never dropped: a render that missed an answer or a paused request
//! would only wait for its deadline, and no one would learn why.

use crate::protocol::{Command, Event, Timed};
use crate::sync::lock;
use anyhow::{anyhow, bail, Result};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What Chromium sent to one session (or to the browser).
#[derive(Debug)]
pub(crate) enum Message {
    Answer(Answer),
    Event(Event),
}

/// The answer to the command with this id: its result, or the error Chromium gave.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) id: u64,
    result: Result<Box<RawValue>, String>,
}

impl Answer {
    /// The answer read as the response of `C`, the command it answers.
    pub(crate) fn parse<C: Command>(self) -> Result<C::Response> {
        let result = self
            .result
            .map_err(|error| anyhow!("{} failed: {error}", C::METHOD))?;
        serde_json::from_str(result.get()).map_err(|error| {
            Malformed::new(Some(C::METHOD), result.get().as_bytes(), &error).into()
        })
    }
}

/// What a tab's channel carries: a message, or one that could not be read.
pub(crate) type Delivery = Result<Message, Malformed>;

/// A message from Chromium that could not be read: its method (when it has one),
/// why, and the start of its text.
#[derive(Clone, Debug)]
pub(crate) struct Malformed {
    method: Option<String>,
    reason: String,
    start: String,
}

/// How much of a malformed message its error quotes.
const QUOTED: usize = 200;

impl Malformed {
    fn new(method: Option<&str>, text: &[u8], reason: &dyn fmt::Display) -> Malformed {
        let text = String::from_utf8_lossy(&text[..text.len().min(QUOTED * 4)]);
        Malformed {
            method: method.map(str::to_string),
            reason: reason.to_string(),
            start: text.chars().take(QUOTED).collect(),
        }
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let method = self.method.as_deref().unwrap_or("without a method");
        write!(
            f,
            "malformed DevTools message {method} ({}): {}",
            self.reason, self.start
        )
    }
}

impl std::error::Error for Malformed {}

/// Where the reader thread delivers messages. Dropped when the pipe closes, which is
/// how a waiting tab learns that its browser is gone.
#[derive(Default)]
struct Routes {
    /// Commands awaiting their answer: where to send it.
    waiting: HashMap<u64, Sender<Delivery>>,
    /// Events by session id.
    sessions: HashMap<String, Sender<Delivery>>,
}

/// One browser's end of the pipe.
pub(crate) struct Connection {
    commands: Mutex<File>,
    routes: Arc<Mutex<Routes>>,
    next_id: AtomicU64,
    closed: Arc<AtomicBool>,
}

impl Connection {
    /// Starts reading `answers` (Chromium's fd 4) on a thread of its own; commands go
    /// to `commands` (Chromium's fd 3).
    pub(crate) fn new(commands: File, answers: File) -> Result<Connection> {
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
    pub(crate) fn closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Sends a command to a tab's session without waiting; its answer arrives among
    /// the session's events (see [`Connection::follow`]). The id is returned.
    pub(crate) fn send<C: Command>(&self, session: &str, command: &C) -> Result<u64> {
        let reply = lock(&self.routes).sessions.get(session).cloned();
        let reply = reply.ok_or(Lost::Browser)?;
        self.send_to(Some(session), command, reply)
    }

    /// Sends a browser-level command and waits for its answer, at most its timeout.
    pub(crate) fn call<C: Timed>(&self, command: &C) -> Result<C::Response> {
        let (reply, answers) = mpsc::channel();
        let id = self.send_to(None, command, reply)?;
        let deadline = Instant::now() + C::TIMEOUT;
        loop {
            match receive(&answers, deadline)? {
                Some(Message::Answer(answer)) if answer.id == id => return answer.parse::<C>(),
                Some(_) => continue,
                None => bail!(
                    "{}: the browser did not answer in {:?}",
                    C::METHOD,
                    C::TIMEOUT
                ),
            }
        }
    }

    fn send_to<C: Command>(
        &self,
        session: Option<&str>,
        command: &C,
        reply: Sender<Delivery>,
    ) -> Result<u64> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = Outgoing {
            id,
            method: C::METHOD,
            session,
            params: command,
        };
        let mut bytes = serde_json::to_vec(&message)?;
        bytes.push(0);
        {
            let mut routes = lock(&self.routes);
            if self.closed() {
                return Err(Lost::Browser.into());
            }
            routes.waiting.insert(id, reply);
        }
        let written = lock(&self.commands).write_all(&bytes);
        if let Err(error) = written {
            lock(&self.routes).waiting.remove(&id);
            return Err(anyhow::Error::new(error).context(Lost::Browser));
        }
        Ok(id)
    }

    /// The channel of `session`'s events and answers from now on. It disconnects when
    /// the browser is gone.
    pub(crate) fn follow(&self, session: &str) -> Receiver<Delivery> {
        let (events, channel) = mpsc::channel();
        let mut routes = lock(&self.routes);
        if !self.closed() {
            routes.sessions.insert(session.to_string(), events);
        }
        channel
    }

    /// Stops routing the events of `session`.
    pub(crate) fn forget(&self, session: &str) {
        lock(&self.routes).sessions.remove(session);
    }
}

/// A command as it goes down the pipe.
#[derive(Serialize)]
struct Outgoing<'a, C> {
    id: u64,
    method: &'static str,
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    params: &'a C,
}

/// A message as it comes up the pipe, before its parameters or result are read.
#[derive(Deserialize)]
struct Incoming<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "sessionId")]
    session: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<ProtocolError>,
}

/// Chromium's refusal of a command.
#[derive(Deserialize)]
struct ProtocolError {
    #[serde(default = "ProtocolError::unexplained")]
    message: String,
}

impl ProtocolError {
    fn unexplained() -> String {
        "protocol error".into()
    }
}

/// A render ended by a death that need not be its page's doing: the renderer
/// process it shares with the other tabs of its browser (out of memory, say), or
/// the whole browser. Such renders are tried again alone (`Renderer::render_each`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lost {
    Browser,
    Renderer,
}

impl Lost {
    /// Whether `error` is (or was caused by) such a death.
    pub(crate) fn caused(error: &anyhow::Error) -> bool {
        error.downcast_ref::<Lost>().is_some()
    }
}

impl fmt::Display for Lost {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Lost::Browser => "the browser is gone",
            Lost::Renderer => "the page crashed its tab",
        })
    }
}

impl std::error::Error for Lost {}

/// The next message on `channel`; None when `deadline` passes first, an error when
/// the browser is gone or sent what could not be read.
pub(crate) fn receive(channel: &Receiver<Delivery>, deadline: Instant) -> Result<Option<Message>> {
    let wait = deadline.saturating_duration_since(Instant::now());
    match channel.recv_timeout(wait) {
        Ok(delivery) => Ok(Some(delivery?)),
        Err(RecvTimeoutError::Timeout) => Ok(None),
        Err(RecvTimeoutError::Disconnected) => Err(Lost::Browser.into()),
    }
}

/// Reads NUL-ended messages until the pipe closes, handing each to its route.
fn read_messages(answers: impl Read, routes: &Mutex<Routes>) {
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
        deliver(&bytes, routes);
    }
}

/// Reads one message and hands it to whoever waits for it.
fn deliver(bytes: &[u8], routes: &Mutex<Routes>) {
    let message = match serde_json::from_slice::<Incoming>(bytes) {
        Ok(message) => message,
        Err(error) => return deliver_to_all(&Malformed::new(None, bytes, &error), routes),
    };
    if let Some(id) = message.id {
        let result = match (message.error, message.result) {
            (Some(error), _) => Err(error.message),
            (None, result) => Ok(result.unwrap_or(RawValue::NULL).to_owned()),
        };
        if let Some(reply) = lock(routes).waiting.remove(&id) {
            let _ = reply.send(Ok(Message::Answer(Answer { id, result })));
        }
        return;
    }
    let (Some(method), Some(session)) = (message.method, message.session) else {
        return;
    };
    let params = message.params.map_or("{}", RawValue::get);
    let delivery = match Event::parse(&method, params) {
        Ok(Some(event)) => Ok(Message::Event(event)),
        Ok(None) => return,
        Err(error) => Err(Malformed::new(Some(&method), bytes, &error)),
    };
    if let Some(events) = lock(routes).sessions.get(session.as_ref()) {
        let _ = events.send(delivery);
    }
}

/// A message that names no one: every waiting command and every tab gets the error.
fn deliver_to_all(malformed: &Malformed, routes: &Mutex<Routes>) {
    let mut routes = lock(routes);
    for (_, reply) in routes.waiting.drain() {
        let _ = reply.send(Err(malformed.clone()));
    }
    for events in routes.sessions.values() {
        let _ = events.send(Err(malformed.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Lifecycle, Navigate};

    /// Routes with one session, `S`, and a browser-level command waiting, id 7; what
    /// each of them receives when `stream` (NUL-ended messages) is read.
    fn read(stream: &[u8]) -> (Vec<Delivery>, Vec<Delivery>) {
        let routes = Mutex::new(Routes::default());
        let (session, events) = mpsc::channel();
        let (command, answers) = mpsc::channel();
        lock(&routes).sessions.insert("S".into(), session);
        lock(&routes).waiting.insert(7, command);
        read_messages(stream, &routes);
        (events.try_iter().collect(), answers.try_iter().collect())
    }

    #[test]
    fn events_are_read_once_into_types_and_unfollowed_ones_are_skipped() {
        let (events, _) = read(
            b"{\"method\":\"Page.frameNavigated\",\"params\":{\"frame\":{}},\"sessionId\":\"S\"}\0\
              {\"method\":\"Page.lifecycleEvent\",\"params\":{\"frameId\":\"F\",\"loaderId\":\"L\",\
              \"name\":\"load\",\"timestamp\":1.5},\"sessionId\":\"S\"}\0",
        );
        assert_eq!(events.len(), 1, "{events:?}");
        let Ok(Message::Event(Event::Lifecycle(Lifecycle { name, .. }))) = &events[0] else {
            panic!("{events:?}");
        };
        assert_eq!(name, "load");
    }

    #[test]
    fn an_event_whose_parameters_cannot_be_read_is_an_error_naming_it() {
        let paused = b"{\"method\":\"Fetch.requestPaused\",\"params\":{\"requestId\":5},\
                       \"sessionId\":\"S\"}\0";
        let (events, answers) = read(paused);
        assert!(answers.is_empty(), "it was meant for the session alone");
        // What the tab's loop gets from its channel.
        let (tab, channel) = mpsc::channel();
        events
            .into_iter()
            .for_each(|delivery| tab.send(delivery).expect("sent"));
        let error = receive(&channel, Instant::now()).expect_err("an error, not a skip");
        let error = error.to_string();
        assert!(error.contains("Fetch.requestPaused"), "{error}");
        assert!(error.contains("{\"method\":\"Fetch.requestPaused\",\"params\":{\"requestId\":5}"));
        assert!(error.contains("invalid type: integer `5`"), "{error}");
    }

    #[test]
    fn a_message_that_is_not_json_is_an_error_for_everyone_waiting() {
        let (events, answers) = read(b"{\"id\":7,\"result\":{\0");
        for received in [&events, &answers] {
            let [Err(error)] = &received[..] else {
                panic!("{received:?}");
            };
            assert!(
                error.to_string().contains("{\"id\":7,\"result\":{"),
                "{error}"
            );
        }
    }

    #[test]
    fn an_answer_is_read_as_its_commands_response_or_its_error() {
        let (_, answers) = read(b"{\"id\":7,\"result\":{\"loaderId\":12}}\0");
        let Some(Ok(Message::Answer(answer))) = answers.into_iter().next() else {
            panic!("no answer");
        };
        let error = answer
            .parse::<Navigate>()
            .err()
            .expect("a number is no loader id");
        let error = error.to_string();
        assert!(
            error.contains("Page.navigate") && error.contains("{\"loaderId\":12}"),
            "{error}"
        );

        let (_, answers) = read(b"{\"id\":7,\"error\":{\"code\":-32000,\"message\":\"no\"}}\0");
        let Some(Ok(Message::Answer(answer))) = answers.into_iter().next() else {
            panic!("no answer");
        };
        let error = answer.parse::<Navigate>().err().expect("refused");
        assert_eq!(error.to_string(), "Page.navigate failed: no");
    }
}
