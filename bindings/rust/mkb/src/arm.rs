//! The arm of the four-arm protocol a task belongs to (`enum mkb_arm`, values pinned by the header).
use std::fmt;

use mkb_sys as sys;

use crate::text::text;

#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arm {
    /// The first DSL of the pair, no help.
    SoloA,
    /// The second DSL, no help.
    SoloB,
    /// The second DSL, with the skill written in `SoloA`.
    A2bSkill,
    /// The first DSL, with the skill written in `SoloB`.
    B2aSkill,
    /// A value this binding does not know (from a newer library); its name still prints.
    Other(i32),
}

// In the order of their values, 0 to 3.
const KNOWN: [Arm; 4] = [Arm::SoloA, Arm::SoloB, Arm::A2bSkill, Arm::B2aSkill];

impl Arm {
    /// Whether the arm starts from another arm's skill (then `Task::source_skill` holds it).
    pub fn is_skill(self) -> bool {
        matches!(self, Arm::A2bSkill | Arm::B2aSkill)
    }
}

impl From<i32> for Arm {
    fn from(value: i32) -> Arm {
        usize::try_from(value).ok().and_then(|i| KNOWN.get(i).copied()).unwrap_or(Arm::Other(value))
    }
}

impl From<Arm> for i32 {
    fn from(arm: Arm) -> i32 {
        match arm {
            Arm::Other(value) => value,
            known => KNOWN.iter().position(|a| *a == known).unwrap() as i32,
        }
    }
}

/// The library's name for it ("solo_a", "a2b_skill"); "unknown" for a value the library does not know.
impl fmt::Display for Arm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&unsafe { text(sys::mkb_arm_name(i32::from(*self))) })
    }
}
