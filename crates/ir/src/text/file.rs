//! Reading eubatch's own format (the grammar is in `docs/ir-format.md`).

use index_vec::IndexVec;

use super::cursor::{Cursor, PResult};
use super::inst::{parse_inst, Dialect, ParsedInst, Syntax};
use crate::entities::Block;
use crate::error::ParseError;
use crate::shader::{Backend, BlockData, Shader, Stage};
use crate::target::Gen;
use crate::vgrf::VgrfLayout;

/// Parses a shader in eubatch's format.
pub fn parse_shader(text: &str) -> Result<Shader, ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, l))
        .filter(|(_, l)| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with('#')
        });
    let (hl, header) = lines
        .next()
        .ok_or_else(|| ParseError::new(1, 1, "expected a `shader` header, found an empty file"))?;
    let mut shader = parse_header(&mut Cursor::new(header, hl))?;
    let dialect = Dialect {
        syntax: Syntax::Eubatch,
        align16: shader.backend == Backend::Vec4,
    };
    let mut parsed = ParsedInst::default();
    let mut have_block = false;
    for (ln, line) in lines {
        let mut c = Cursor::new(line, ln);
        c.skip_spaces();
        let r = c.rest();
        if r.starts_with("vgrf") && !have_block {
            c.pos += 4;
            let nr = c.number("a VGRF number")?;
            if nr as usize != shader.vgrfs.len() {
                return Err(c.error(format!(
                    "expected vgrf{} next: VGRFs are declared in order from 0",
                    shader.vgrfs.len()
                )));
            }
            c.skip_spaces();
            let layout = parse_layout(&mut c)?;
            end_of_line(&mut c)?;
            shader.vgrfs.push(layout);
        } else if r.starts_with("block") && r.trim_end().ends_with(':') {
            c.pos += 5;
            let nr = c.number("a block number")?;
            if nr as usize != shader.layout.blocks.len() {
                return Err(c.error(format!(
                    "expected block{} next: blocks are numbered in order",
                    shader.layout.blocks.len()
                )));
            }
            c.expect(":")?;
            end_of_line(&mut c)?;
            shader.layout.blocks.push(BlockData::default());
            have_block = true;
        } else if !have_block {
            return Err(c.expected("a `vgrfN LAYOUT` declaration or `block0:`"));
        } else {
            parse_inst(&mut c, dialect, &mut parsed)?;
            let block = Block::new(shader.layout.blocks.len() - 1);
            let inst = shader.append_inst(block, parsed.builder());
            shader.insts.size_written[inst] = parsed
                .size_written
                .unwrap_or_else(|| shader.default_size_written(inst));
        }
    }
    if shader.layout.blocks.is_empty() {
        shader.layout.blocks = IndexVec::from_vec(vec![BlockData::default()]);
    }
    Ok(shader)
}

fn end_of_line(c: &mut Cursor<'_>) -> PResult<()> {
    c.skip_spaces();
    if c.at_end() || c.peek() == Some(b'#') {
        Ok(())
    } else {
        Err(c.expected("end of line"))
    }
}

/// `4x32` or `4x16+16`.
pub fn parse_layout(c: &mut Cursor<'_>) -> PResult<VgrfLayout> {
    let comps = c.number("a component count")?;
    c.expect("x")?;
    let data = c.number("data bytes per component")?;
    let padding = if c.eat("+") {
        c.number("padding bytes per component")?
    } else {
        0
    };
    let fits = |v: u32| u16::try_from(v).ok();
    match (fits(comps), fits(data), fits(padding)) {
        (Some(components), Some(data), Some(padding)) if components > 0 && data > 0 && comps as u64 * (data as u64 + padding as u64) <= 1 << 24 => {
            Ok(VgrfLayout {
                components,
                data,
                padding,
            })
        }
        _ => Err(c.error("layout out of range: components and data bytes must be 1..65535, the total at most 16 MiB")),
    }
}

fn parse_header(c: &mut Cursor<'_>) -> PResult<Shader> {
    c.skip_spaces();
    c.expect("shader")?;
    c.skip_spaces();
    c.expect("\"")?;
    let mut name = String::new();
    loop {
        match c.peek() {
            None => return Err(c.expected("a closing `\"`")),
            Some(b'"') => {
                c.pos += 1;
                break;
            }
            Some(b'\\') => {
                c.pos += 1;
                let ch = c
                    .rest()
                    .chars()
                    .next()
                    .ok_or_else(|| c.expected("an escaped character"))?;
                name.push(ch);
                c.pos += ch.len_utf8();
            }
            Some(_) => {
                let ch = c.rest().chars().next().unwrap();
                name.push(ch);
                c.pos += ch.len_utf8();
            }
        }
    }
    let (mut stage, mut width, mut target, mut backend) = (None, None, None, Backend::Scalar);
    loop {
        c.skip_spaces();
        if c.at_end() {
            break;
        }
        let key = c.ident();
        c.skip_spaces();
        let val_col = c.pos;
        let val = c.take_while(|b| !b.is_ascii_whitespace());
        let bad = |what: &str| {
            ParseError::new(
                c.line,
                val_col as u32 + 1,
                format!("expected {what}, found `{val}`"),
            )
        };
        match key {
            "stage" => {
                stage = Some(
                    Stage::from_abbrev(val)
                        .ok_or_else(|| bad("a stage (VS, TCS, TES, GS, FS, CS, TASK, MESH)"))?,
                )
            }
            "width" => {
                width = Some(
                    val.parse::<u8>()
                        .ok()
                        .filter(|w| matches!(w, 1 | 2 | 4 | 8 | 16 | 32))
                        .ok_or_else(|| bad("a dispatch width"))?,
                )
            }
            "target" => {
                target = Some(
                    Gen::from_name(val).ok_or_else(|| bad("a target such as skl, bdw or hsw"))?,
                )
            }
            "backend" => {
                backend = match val {
                    "scalar" => Backend::Scalar,
                    "vec4" => Backend::Vec4,
                    _ => return Err(bad("`scalar` or `vec4`")),
                }
            }
            "" => return Err(c.expected("a header field (stage, width, target, backend)")),
            _ => {
                return Err(ParseError::new(
                    c.line,
                    val_col as u32 + 1,
                    format!("unknown header field `{key}`"),
                ))
            }
        }
    }
    let missing = |f: &str| c.error(format!("the header has no `{f}`"));
    Ok(Shader::new(
        name,
        stage.ok_or_else(|| missing("stage"))?,
        backend,
        width.ok_or_else(|| missing("width"))?,
        target.ok_or_else(|| missing("target"))?,
    ))
}

/// Prints `shader`, parses the text back and compares the two IRs field by field.
pub fn check_round_trip(shader: &Shader) -> Result<(), String> {
    let text = super::print_shader(shader);
    let back = parse_shader(&text).map_err(|e| format!("printed text does not parse: {e}"))?;
    crate::shader::same_ir(shader, &back)
}
