//! A closed set of values named by words: an enum as a command line, a file or a
//! cache key spells it. The library declares each value's name and meaning here;
//! the command line turns the list into a flag, so no library type needs clap.

/// An enum whose values are chosen by name.
pub trait Choice: Copy + PartialEq + 'static {
    /// Every value, with its name and what it means (a flag's help).
    const CHOICES: &'static [(Self, &'static str, &'static str)];

    /// The value's name.
    fn name(self) -> &'static str {
        Self::CHOICES
            .iter()
            .find(|(value, ..)| *value == self)
            .map(|(_, name, _)| *name)
            .expect("every value is in CHOICES")
    }

    /// The value of this name, if there is one.
    fn from_name(name: &str) -> Option<Self> {
        Self::CHOICES
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(value, ..)| *value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Side {
        Left,
        Right,
    }

    impl Choice for Side {
        const CHOICES: &'static [(Side, &'static str, &'static str)] = &[
            (Side::Left, "left", "the first"),
            (Side::Right, "right", "the second"),
        ];
    }

    #[test]
    fn names_and_values_map_both_ways() {
        assert_eq!(Side::Right.name(), "right");
        assert_eq!(Side::from_name("left"), Some(Side::Left));
        assert_eq!(Side::from_name("Left"), None);
    }
}
