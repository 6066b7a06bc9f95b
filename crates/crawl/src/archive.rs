//! The WARC files of an input: a WARC file itself, or each WARC inside a WACZ.
//!
//! A WACZ (Web Archive Collection Zipped) is a zip whose `archive/` folder holds
//! the WARC files, stored uncompressed so that a record can be read by seeking to
//! its offset (the spec asks for it; a WARC stored deflated inside one is refused
//! with that reason). Its indexes and page lists are not needed: the records say
//! everything.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::warc::{BadRecord, Records};
use twinpage_util::write_atomically;

/// One WARC file: a file of its own, or a stretch of a WACZ.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WarcFile {
    /// The file on disk.
    pub path: PathBuf,
    /// How sources name it: the path, or `crawl.wacz/archive/data.warc.gz`.
    pub name: String,
    /// Where it starts in `path`, and how long it is.
    start: u64,
    len: u64,
    /// A plain copy of the file, read instead of it, when it is gzipped as one
    /// stream ([`WarcFile::unzip_if_one_stream`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unzipped: Option<PathBuf>,
}

impl WarcFile {
    /// The WARC files `input` holds: itself when it is a WARC, the WARCs of its
    /// `archive/` folder when it is a WACZ.
    pub fn of(input: &Path) -> Result<Vec<WarcFile>> {
        let len = std::fs::metadata(input)
            .with_context(|| format!("cannot read {}", input.display()))?
            .len();
        if !is_wacz(input) {
            check_warc(input)?;
            return Ok(vec![WarcFile {
                path: input.to_path_buf(),
                name: input.display().to_string(),
                start: 0,
                len,
                unzipped: None,
            }]);
        }
        let file = File::open(input).with_context(|| format!("cannot read {}", input.display()))?;
        let mut zip = zip::ZipArchive::new(file)
            .with_context(|| format!("{} is not a WACZ (not a zip file)", input.display()))?;
        let mut warcs = Vec::new();
        for i in 0..zip.len() {
            let entry = zip.by_index_raw(i)?;
            let name = entry.name().to_string();
            if !name.starts_with("archive/")
                || !(name.ends_with(".warc") || name.ends_with(".warc.gz"))
            {
                continue;
            }
            if entry.compression() != zip::CompressionMethod::Stored {
                bail!(
                    "{}: {name} is compressed inside the zip; a WACZ stores its WARC files uncompressed (ZIP_STORED) so that records can be found by offset",
                    input.display()
                );
            }
            warcs.push(WarcFile {
                path: input.to_path_buf(),
                name: format!("{}/{name}", input.display()),
                start: entry.data_start(),
                len: entry.size(),
                unzipped: None,
            });
        }
        if warcs.is_empty() {
            bail!("{}: a WACZ with no WARC file in archive/", input.display());
        }
        Ok(warcs)
    }

    /// Its records, from the start.
    pub fn records(&self) -> Result<Records<Stretch>> {
        let stretch = match &self.unzipped {
            Some(plain) => Stretch::whole(plain),
            None => Stretch::open(&self.path, self.start, self.len),
        };
        let stretch = stretch.with_context(|| format!("cannot read {}", self.name))?;
        Records::new(stretch).with_context(|| format!("cannot read {}", self.name))
    }

    /// The plain copy its records are read from, when it is gzipped as one stream.
    pub fn unzipped(&self) -> Option<&Path> {
        self.unzipped.as_deref()
    }

    /// When the file is gzipped as one stream (`gzip crawl.warc`; replay tools
    /// refuse such a file), writes it decompressed to `plain` and reads its records
    /// from there on, so that each can be reached by its offset: replay reads a
    /// page's resources one by one, and in one gzip stream each would be
    /// decompressed again from the start. Its records are then named by their
    /// offsets in the decompressed file (`NAME (unzipped)#OFFSET`). Returns the
    /// faults of the gzip stream (offset in the file, why).
    pub fn unzip_if_one_stream(&mut self, plain: &Path) -> Result<Vec<BadRecord>> {
        if self.unzipped.is_some() || !self.records()?.gzipped_as_one_stream() {
            return Ok(Vec::new());
        }
        if let Some(folder) = plain.parent() {
            std::fs::create_dir_all(folder)
                .with_context(|| format!("cannot create {}", folder.display()))?;
        }
        let mut faults = Vec::new();
        write_atomically(plain, |out| {
            faults = self.records()?.unzip(out)?;
            Ok(())
        })
        .with_context(|| format!("cannot unzip {} into {}", self.name, plain.display()))?;
        self.name = format!("{} (unzipped)", self.name);
        self.unzipped = Some(plain.to_path_buf());
        Ok(faults)
    }
}

/// Refuses a file that is neither gzipped nor starts as a WARC record (or an ARC
/// file) does, before any record of it is read: it is not a crawl (an empty file is
/// an empty crawl).
fn check_warc(input: &Path) -> Result<()> {
    let mut head = [0u8; 11];
    let mut file = File::open(input).with_context(|| format!("cannot read {}", input.display()))?;
    let read = file
        .read(&mut head)
        .with_context(|| format!("cannot read {}", input.display()))?;
    let head = &head[..read];
    if head.is_empty()
        || head.starts_with(&[0x1f, 0x8b])
        || head.starts_with(b"WARC/")
        || b"WARC/".starts_with(head)
        || head == b"filedesc://"
    {
        return Ok(());
    }
    bail!(
        "{} is not a WARC file (it starts with {:?}); give WARC (.warc, .warc.gz), ARC, WACZ or JSONL files, or one docs.csv or folder",
        input.display(),
        String::from_utf8_lossy(head)
    )
}

/// Whether `path` names a WACZ (by its suffix).
pub fn is_wacz(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wacz"))
}

/// A stretch of a file, read and sought as if it were the whole file.
pub struct Stretch {
    file: File,
    start: u64,
    len: u64,
    at: u64,
}

impl Stretch {
    fn whole(path: &Path) -> io::Result<Stretch> {
        let len = std::fs::metadata(path)?.len();
        Stretch::open(path, 0, len)
    }

    fn open(path: &Path, start: u64, len: u64) -> io::Result<Stretch> {
        let mut file = File::open(path)?;
        file.seek(SeekFrom::Start(start))?;
        Ok(Stretch {
            file,
            start,
            len,
            at: 0,
        })
    }
}

impl Read for Stretch {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.at) as usize;
        let room = buf.len().min(left);
        let n = self.file.read(&mut buf[..room])?;
        self.at += n as u64;
        Ok(n)
    }
}

impl Seek for Stretch {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let at = match to {
            SeekFrom::Start(n) => n as i128,
            SeekFrom::Current(n) => self.at as i128 + n as i128,
            SeekFrom::End(n) => self.len as i128 + n as i128,
        };
        if at < 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start",
            ));
        }
        let at = (at as u64).min(self.len);
        self.file.seek(SeekFrom::Start(self.start + at))?;
        self.at = at;
        Ok(at)
    }
}
