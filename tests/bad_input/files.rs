//! Bad-input cases of the hardening family "files".

use super::Case;

pub fn cases() -> Vec<Case> {
    Vec::new()
}
