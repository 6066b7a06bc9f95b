//! Judging: a model's figures on labelled pairs broken down by any column
//! ([`grouped`]), everything a plot of them needs ([`figures`]), on groups it never trained on ([`leave_out`]), and the classic detectors on the same pairs ([`baseline`]: the
//! candidate methods and the Yandex signature detectors of [`signatures`], each
//! as a stand-alone duplicate detector).

pub mod baseline;
pub mod figures;
pub mod grouped;
pub mod leave_out;
pub mod signatures;
