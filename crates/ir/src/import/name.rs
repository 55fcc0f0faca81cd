//! Mesa's dump file names: `STAGE[WIDTH]-PROGRAM-II-PP-PASS` (`fs_visitor::debug_optimizer`:
//! `"%s%d-%s-%02d-%02d-%s"`; the vec4 back end writes the stage without a width).

use crate::shader::{Backend, Stage};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpName {
    pub stage: Stage,
    /// Dispatch width; `None` for vec4 dumps.
    pub width: Option<u8>,
    pub program: String,
    pub iteration: u32,
    pub pass_num: u32,
    pub pass: String,
}

impl DumpName {
    pub fn parse(file_name: &str) -> Option<DumpName> {
        let (stage_tok, rest) = file_name.split_once('-')?;
        let letters = stage_tok.trim_end_matches(|c: char| c.is_ascii_digit());
        let stage = Stage::from_abbrev(letters)?;
        let digits = &stage_tok[letters.len()..];
        let width = if digits.is_empty() {
            None
        } else {
            Some(
                digits
                    .parse::<u8>()
                    .ok()
                    .filter(|w| matches!(w, 8 | 16 | 32))?,
            )
        };
        let mut parts = rest.rsplitn(4, '-');
        let pass = parts.next()?;
        let pass_num = parts.next()?;
        let iteration = parts.next()?;
        let program = parts.next()?;
        if pass.is_empty() || program.is_empty() || pass_num.len() != 2 || iteration.len() != 2 {
            return None;
        }
        Some(DumpName {
            stage,
            width,
            program: program.to_string(),
            iteration: iteration.parse().ok()?,
            pass_num: pass_num.parse().ok()?,
            pass: pass.to_string(),
        })
    }

    pub fn backend(&self) -> Backend {
        if self.width.is_some() {
            Backend::Scalar
        } else {
            Backend::Vec4
        }
    }

    pub fn is_start(&self) -> bool {
        self.pass == "start"
    }

    pub fn is_pre_register_allocate(&self) -> bool {
        self.pass == "pre_register_allocate"
    }

    /// The file name of the same variant's start dump (`STAGE[WIDTH]-PROGRAM-00-00-start`).
    pub fn start_file_name(&self) -> String {
        let width = self.width.map(|w| w.to_string()).unwrap_or_default();
        format!(
            "{}{width}-{}-00-00-start",
            self.stage.abbrev(),
            self.program
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let d = DumpName::parse("FS16-GLSL1-00-00-start").unwrap();
        assert_eq!(
            (d.stage, d.width, d.program.as_str(), d.pass.as_str()),
            (Stage::Fs, Some(16), "GLSL1", "start")
        );
        assert_eq!(
            DumpName::parse("FS16-GLSL1-90-90-pre_register_allocate")
                .unwrap()
                .start_file_name(),
            "FS16-GLSL1-00-00-start"
        );
        let d = DumpName::parse("VS-GLSL3-90-90-pre_register_allocate").unwrap();
        assert_eq!(
            (d.stage, d.width, d.backend()),
            (Stage::Vs, None, Backend::Vec4)
        );
        assert!(d.is_pre_register_allocate());
        let d = DumpName::parse("CS8-(null)-00-00-start").unwrap();
        assert_eq!(d.program, "(null)");
        assert!(DumpName::parse("asm.txt").is_none());
        assert!(DumpName::parse("stats.txt").is_none());
        assert!(DumpName::parse("source.shader_test").is_none());
        assert!(DumpName::parse("FS7-GLSL1-00-00-start").is_none());
    }
}
