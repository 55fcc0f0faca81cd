//! Reading shaders from files: Mesa dumps (by their file names) and eubatch's own `.eu`
//! files, and finding them under directories.

pub mod dataflow_match;
pub mod df_immediates;
pub mod float_immediates;
pub mod header_bits;
pub mod infer;
pub mod listing;
pub mod mesa;
pub mod name;
pub mod payload_scalars;
pub mod scalar_sources;
pub mod shader_test;
pub mod timestamp;
pub mod vec4_float_immediates;
pub mod vec4_texture_indices;

use std::path::{Path, PathBuf};

pub use mesa::import_mesa_dump;
pub use name::DumpName;

use crate::shader::Shader;
use crate::target::Gen;

/// What kind of input a file is, judged by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// eubatch's own format (`*.eu`).
    Eubatch,
    /// A Mesa optimizer dump.
    Mesa(DumpName),
}

impl InputKind {
    pub fn of(path: &Path) -> Option<InputKind> {
        let file = path.file_name()?.to_str()?;
        if file.ends_with(".eu") {
            return Some(InputKind::Eubatch);
        }
        DumpName::parse(file).map(InputKind::Mesa)
    }
}

/// An error reading one file: the file, and where in it.
#[derive(Clone, Debug)]
pub struct LoadError {
    pub path: PathBuf,
    /// Line and column, when the error is inside the text.
    pub pos: Option<(u32, u32)>,
    pub msg: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pos {
            Some((l, c)) => write!(f, "{}:{}:{}: {}", self.path.display(), l, c, self.msg),
            None => write!(f, "{}: {}", self.path.display(), self.msg),
        }
    }
}

impl std::error::Error for LoadError {}

/// The final-code listing (`asm.txt`) of one directory, read once and taken apart once per
/// program asked for, for the dumps beside it that need it: a test's SIMD8, SIMD16 and
/// SIMD32 dumps each recover what their printer left out from the same program of the same
/// listing, which is most of what importing them reads (a listing is as large as all the
/// dumps beside it together). It holds the last listing asked for; asking for another
/// replaces it.
#[derive(Default)]
pub struct Listings {
    /// The listing held, and whether it could be read.
    path: Option<PathBuf>,
    readable: bool,
    /// Its text; the buffer is kept for the next listing (they are as large as a
    /// directory's dumps together: a fresh one each time was faulted in by the system).
    text: String,
    /// What taking it apart gave, per program and whether its wide immediates were
    /// gathered ([`listing::ListingFilter`]).
    parsed: Vec<ParsedListing>,
}

/// The programs of a listing that one filter kept, or where the listing is wrong.
struct ParsedListing {
    stage: crate::shader::Stage,
    program: String,
    wide_immediates: bool,
    programs: Result<Vec<listing::ListedProgram>, (u32, String)>,
}

impl Listings {
    /// Makes the listing at `path` the one held (reading it unless it is already), and
    /// says whether it could be read.
    pub fn read(&mut self, path: &Path) -> bool {
        if self.path.as_deref() != Some(path) {
            use std::io::Read;
            self.text.clear();
            self.readable = std::fs::File::open(path)
                .and_then(|mut f| f.read_to_string(&mut self.text))
                .is_ok();
            self.path = Some(path.to_path_buf());
            self.parsed.clear();
        }
        self.readable
    }

    /// The held listing's text and its programs `filter` keeps, taken apart the first time
    /// that filter is asked for. Only after [`Listings::read`] said it could be read.
    pub fn programs(
        &mut self,
        filter: listing::ListingFilter<'_>,
    ) -> (&str, &Result<Vec<listing::ListedProgram>, (u32, String)>) {
        assert!(self.readable, "a listing read");
        let text = self.text.as_str();
        let (stage, program) = filter.program.expect("a filter naming its program");
        let at = match self.parsed.iter().position(|p| {
            p.stage == stage && p.program == program && p.wide_immediates == filter.wide_immediates
        }) {
            Some(at) => at,
            None => {
                self.parsed.push(ParsedListing {
                    stage,
                    program: program.to_string(),
                    wide_immediates: filter.wide_immediates,
                    programs: listing::listed_programs_filtered(text, filter),
                });
                self.parsed.len() - 1
            }
        };
        (text, &self.parsed[at].programs)
    }
}

/// Parses `text`, read from `path`. A Mesa dump needs the target it was made for; an `.eu`
/// file names its own. `name` is the shader's name for Mesa dumps.
pub fn load_text(
    path: &Path,
    text: &str,
    name: &str,
    target: Option<Gen>,
) -> Result<Shader, LoadError> {
    load_text_with(path, text, name, target, &mut Listings::default())
}

/// [`load_text`], with the final-code listing beside the dump taken from `listings` when
/// it holds it already (the dumps of one directory, imported one after another, share it).
pub fn load_text_with(
    path: &Path,
    text: &str,
    name: &str,
    target: Option<Gen>,
    listings: &mut Listings,
) -> Result<Shader, LoadError> {
    let fail = |e: crate::error::ParseError| LoadError {
        path: path.to_path_buf(),
        pos: Some((e.line, e.col)),
        msg: e.msg,
    };
    match InputKind::of(path) {
        Some(InputKind::Eubatch) => crate::text::parse_shader(text).map_err(fail),
        Some(InputKind::Mesa(dump)) => {
            let target = target.or_else(|| guess_target(path)).ok_or_else(|| LoadError {
                path: path.to_path_buf(),
                pos: None,
                msg: "cannot tell which GPU this Mesa dump is for: pass --target (skl, bdw, hsw, ...)".into(),
            })?;
            let mut shader = import_mesa_dump(text, &dump, name, target).map_err(fail)?;
            gs_input_layout_from_source(path, &mut shader);
            let urb = listing::needs_urb_offsets(&shader);
            let sampler = header_bits::needs_header_bits(&shader);
            let df = df_immediates::needs_exact_df(&shader);
            let vec4_f = vec4_float_immediates::needs_exact_f(&shader);
            let thread_end = listing::needs_thread_end(&shader);
            // Run-time texture and sampler indices are in the start IR itself.
            if dump.is_start() {
                vec4_texture_indices::recover_uniformized(&mut shader);
            }
            let vec4_tex = vec4_texture_indices::needs_indices(&shader);
            // Mesa 22.3's start dumps lose the dword of an input vertex's URB handle;
            // Mesa 25's print it, and later dumps have the reads lowered.
            let mesa25 = mesa::is_mesa25_dump(text);
            let icp_handles = dump.is_start() && !mesa25;
            let gs_urb = listing::needs_gs_urb_writes(&shader);
            if urb || sampler || df || vec4_f || thread_end || vec4_tex || gs_urb {
                let asm = path.with_file_name("asm.txt");
                if listings.read(&asm) {
                    // Only this program's code is taken apart (the listing holds every
                    // stage's), and its 64-bit immediates only when they serve.
                    let filter = listing::ListingFilter {
                        program: Some((dump.stage, &dump.program)),
                        wide_immediates: df || vec4_f,
                    };
                    let (text, parsed) = listings.programs(filter);
                    let programs = parsed.as_ref().map_err(|(line, msg)| LoadError {
                        path: asm.clone(),
                        pos: Some((*line, 1)),
                        msg: msg.clone(),
                    })?;
                    if urb {
                        let matched = urb_offsets_from_listing(
                            path,
                            (&asm, text),
                            programs,
                            &dump,
                            mesa25,
                            &mut shader,
                        )?;
                        if let (Some((sends, proven)), true) = (matched, icp_handles) {
                            payload_scalars::recover_icp_handles_matched(
                                &mut shader,
                                &sends,
                                proven,
                            );
                        }
                    }
                    if sampler {
                        header_bits_from_listing(path, programs, &dump, &mut shader);
                    }
                    // Every width is compiled from the same NIR: the constants (and the
                    // thread end) of any listed variant of the program serve.
                    let same: Vec<&listing::ListedProgram> = programs
                        .iter()
                        .filter(|p| p.stage == dump.stage && p.program == dump.program)
                        .collect();
                    if thread_end {
                        listing::recover_thread_ends(&mut shader, &same);
                    }
                    if gs_urb {
                        // vec4 code has one variant: the program's own final code.
                        if let Some(p) = same.iter().find(|p| p.width.is_none()) {
                            listing::recover_gs_urb_writes(&mut shader, &p.urb);
                        }
                    }
                    if vec4_tex {
                        // vec4 code has one variant: the program's own final code.
                        if let Some(p) = same.iter().find(|p| p.width.is_none()) {
                            vec4_texture_indices::recover(&mut shader, p);
                        }
                    }
                    if df || vec4_f {
                        if df {
                            df_immediates::recover(&mut shader, &same);
                        }
                        if vec4_f {
                            vec4_float_immediates::recover(&mut shader, &same);
                        }
                    }
                }
            }
            Ok(shader)
        }
        None => Err(LoadError {
            path: path.to_path_buf(),
            pos: None,
            msg: "not a shader: expected a Mesa dump (STAGE-PROGRAM-NN-NN-PASS) or an .eu file"
                .into(),
        }),
    }
}

/// A scalar geometry shader with pushed inputs: where they sit needs its input primitive,
/// from the GLSL source beside the dump ([`shader_test`]); fixed as the shader's input
/// layout ([`Shader::inputs`]). Without a source that declares it, the layout stays
/// unknown (the simulator says so when it needs it).
fn gs_input_layout_from_source(path: &Path, shader: &mut Shader) {
    let pushed = shader.stage == crate::shader::Stage::Gs
        && shader.backend == crate::shader::Backend::Scalar
        && shader.layout.insts().any(|i| {
            shader
                .srcs(i)
                .iter()
                .any(|o| o.file == crate::RegFile::Attr)
        });
    if !pushed {
        return;
    }
    let Ok(source) = std::fs::read_to_string(path.with_file_name("source.shader_test")) else {
        return;
    };
    if let Some(n) = shader_test::gs_vertices_in(&source) {
        shader.inputs = crate::thread_inputs::InputLayout::of_gs(shader, n).ok();
    }
}

/// The URB offsets Mesa's dumps leave out, from the program's final code in the `asm.txt`
/// beside the dump ([`listing`]). Without a listing, or without the program in it (a
/// variant Mesa did not keep), the offsets stay unknown and lowering leaves those
/// messages logical, saying why; a listing that disagrees with the dump is an error.
/// The URB sends the offsets were taken from, in the dump's order, each with whether it
/// is known to be that message, and whether the pairing is proven by data flow
/// ([`dataflow_match`]) rather than taken in order.
fn urb_offsets_from_listing(
    path: &Path,
    (asm, asm_text): (&Path, &str),
    programs: &[listing::ListedProgram],
    dump: &DumpName,
    mesa25: bool,
    shader: &mut Shader,
) -> Result<Option<(Vec<(listing::UrbMessage, bool)>, bool)>, LoadError> {
    let mut first_error = None;
    let target = shader.target;
    let all_known = |urb: &[listing::UrbMessage]| -> Vec<(listing::UrbMessage, bool)> {
        urb.iter().map(|&m| (m, true)).collect()
    };
    for p in programs
        .iter()
        .filter(|p| p.stage == dump.stage && p.program == dump.program && p.width == dump.width)
    {
        // Mesa's scheduler may reorder URB reads: Mesa 25's pre-allocation dump of the
        // same variant has them in program order, with their descriptors. Where it
        // gives an order, that order is taken before the listing's: reads exchanged
        // among themselves pass every check of `recover_urb_offsets` (the Mesa 25 TES
        // of tcs-output-array-*-index-wr took another read's offset for most of theirs).
        // Mesa 22.3's prints no descriptor, so it never gives one; there the sends are
        // paired by data flow (`dataflow_match`), where the scalar program reads the URB.
        let in_order = || {
            pre_ra_dump(path, dump.stage, p.width, &dump.program, target)
                .and_then(|d| listing::urb_in_program_order(p, &d))
        };
        let reads = p.urb.iter().any(|m| m.read);
        let first = (mesa25 && reads).then(in_order).flatten();
        if let Some(urb) = first {
            if listing::recover_urb_offsets(shader, &urb).is_ok() {
                return Ok(Some((all_known(&urb), true)));
            }
        }
        let scalar = shader.backend == crate::shader::Backend::Scalar;
        if !mesa25 && reads && scalar {
            if let Some(urb) = urb_by_data_flow(path, asm_text, p, dump, target) {
                if listing::recover_urb_offsets_matched(shader, &urb).is_ok() {
                    return Ok(Some((urb, true)));
                }
            }
        }
        match listing::recover_urb_offsets(shader, &p.urb) {
            Ok(()) => return Ok(Some((all_known(&p.urb), false))),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
        if !mesa25 {
            if let Some(urb) = in_order() {
                if listing::recover_urb_offsets(shader, &urb).is_ok() {
                    return Ok(Some((all_known(&urb), true)));
                }
            }
        }
    }
    match first_error {
        Some(e) => Err(LoadError {
            path: path.to_path_buf(),
            pos: None,
            msg: format!("URB offsets from {}: {e}", asm.display()),
        }),
        None => Ok(None),
    }
}

/// The URB sends of listed program `p` in the order of the pre-allocation dump of the same
/// variant (program order), paired by data flow ([`dataflow_match::match_sends`]), each
/// with whether it is known: a dump send whose class holds several final-code URB sends
/// is known only where they all have the same offset and handle. `None` where there is
/// no such dump, the graphs do not pair every send, a class mixes URB sends with others,
/// or its URB sends differ in shape (read or write, per-slot offsets).
fn urb_by_data_flow(
    path: &Path,
    asm_text: &str,
    p: &listing::ListedProgram,
    dump: &DumpName,
    target: Gen,
) -> Option<Vec<(listing::UrbMessage, bool)>> {
    let pre = pre_ra_dump(path, dump.stage, p.width, &dump.program, target)?;
    let lines = listing::program_lines(asm_text, p.stage, &p.program, p.width)?;
    let a = dataflow_match::pre_ra_graph(&pre)?;
    let (b, urb_of_send) = dataflow_match::listing_graph(&lines, &a)?;
    if urb_of_send.iter().flatten().count() != p.urb.len() {
        return None;
    }
    let matched = dataflow_match::match_sends(&a, &b)?;
    let mut out = Vec::new();
    for candidates in matched {
        let msgs: Vec<Option<&listing::UrbMessage>> = candidates
            .iter()
            .map(|&k| urb_of_send[k].map(|u| &p.urb[u]))
            .collect();
        if msgs.iter().all(Option::is_none) {
            continue;
        }
        let msgs: Vec<&listing::UrbMessage> = msgs.into_iter().collect::<Option<_>>()?;
        let first = *msgs[0];
        if msgs
            .iter()
            .any(|m| m.read != first.read || m.per_slot != first.per_slot)
        {
            return None;
        }
        let known = msgs
            .iter()
            .all(|m| m.offset == first.offset && m.handle == first.handle);
        out.push((first, known));
    }
    Some(out)
}

/// The header bits of the sampler messages ([`header_bits`]), from the program's own final
/// code or, for a variant Mesa did not keep, from a kept variant of the same stage. Where
/// the bits are not all zero, they are held against the pre-allocation dump of the listed
/// variant (program order; the listing's is the scheduler's). Where nothing agrees the
/// bits stay unknown: a gather then stays logical, saying so, and other messages are
/// lowered as the dump shows them.
fn header_bits_from_listing(
    path: &Path,
    programs: &[listing::ListedProgram],
    dump: &DumpName,
    shader: &mut Shader,
) {
    let Some(width) = dump.width else { return };
    let same_program = |p: &&listing::ListedProgram| {
        p.stage == dump.stage && p.program == dump.program && p.width.is_some()
    };
    // The dump's own code first, then the other widths.
    let mut candidates: Vec<&listing::ListedProgram> =
        programs.iter().filter(same_program).collect();
    candidates.sort_by_key(|p| p.width != Some(width));
    for p in candidates {
        let w = p.width.unwrap_or(width) as u32;
        let Ok(bits) = header_bits::match_listing(shader, p, (w, width as u32)) else {
            continue;
        };
        if bits.iter().any(|&b| b != 0) {
            let in_order = pre_ra_dump(
                path,
                dump.stage,
                Some(w as u8),
                &dump.program,
                shader.target,
            )
            .map(|d| {
                header_bits::header_sequence_of_dump(&d)
                    == header_bits::header_sequence_of_listing(p)
            });
            if in_order != Some(true) {
                continue;
            }
        }
        header_bits::apply(shader, &bits);
        return;
    }
}

/// The pre-allocation dump (`STAGEw-PROGRAM-90-90-pre_register_allocate`) beside the dump
/// at `path` of the variant of `width` channels, parsed; `None` where there is none or it
/// does not parse (it only ever confirms an order).
fn pre_ra_dump(
    path: &Path,
    stage: crate::shader::Stage,
    width: Option<u8>,
    program: &str,
    target: Gen,
) -> Option<Shader> {
    pre_ra_dump_named(path, stage, &width?.to_string(), program, target)
}

/// The pre-allocation dump `STAGE{width}-PROGRAM-90-90-pre_register_allocate` beside the
/// dump at `path` (`width` empty for vec4 code), parsed; `None` where there is none or it
/// does not parse.
fn pre_ra_dump_named(
    path: &Path,
    stage: crate::shader::Stage,
    width: &str,
    program: &str,
    target: Gen,
) -> Option<Shader> {
    let pre_ra = path.with_file_name(format!(
        "{}{width}-{program}-90-90-pre_register_allocate",
        stage.abbrev(),
    ));
    let text = std::fs::read_to_string(&pre_ra).ok()?;
    let name = DumpName::parse(pre_ra.file_name()?.to_str()?)?;
    import_mesa_dump(&text, &name, "", target).ok()
}

/// For a vec4 start dump at `path`: for each of its program's `urb_read`s (program order),
/// the URB decodes of the program's final code in `asm_text` it may be, by data flow
/// between the final code and the pre-allocation dump beside `path`
/// ([`dataflow_match::vec4::read_candidates`]). `None` where there is no such dump or the
/// data flow does not pair them.
pub fn vec4_urb_read_candidates(
    path: &Path,
    asm_text: &str,
    dump: &DumpName,
    target: Gen,
) -> Option<Vec<Vec<usize>>> {
    let pre = pre_ra_dump_named(path, dump.stage, "", &dump.program, target)?;
    let lines = listing::program_lines(asm_text, dump.stage, &dump.program, None)?;
    dataflow_match::vec4::read_candidates(&pre, &lines)
}

/// Reads and parses one file.
pub fn load_file(path: &Path, name: &str, target: Option<Gen>) -> Result<Shader, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError {
        path: path.to_path_buf(),
        pos: None,
        msg: format!("cannot read: {e}"),
    })?;
    load_text(path, &text, name, target)
}

/// A target named by a path component such as `shaderdb-skl` or `vulkan-fp16-bdw`.
pub fn guess_target(path: &Path) -> Option<Gen> {
    path.components().rev().find_map(|c| {
        let s = c.as_os_str().to_str()?;
        s.split(['-', '_', '.']).rev().find_map(|w| {
            let g = Gen::from_name(w)?;
            // Only device names, not "gen9": those are also pass or program names.
            (!w.starts_with("gen")).then_some(g)
        })
    })
}

/// Every shader file under `paths` (files are taken as given), sorted, so that results do
/// not depend on directory order. Non-shader files inside directories (asm.txt, stats.txt,
/// sources) are skipped; a path that does not exist is an error.
pub fn discover(
    paths: &[PathBuf],
    filter: impl Fn(&InputKind) -> bool,
) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| LoadError {
            path: p.clone(),
            pos: None,
            msg: format!("cannot read: {e}"),
        })?;
        if meta.is_dir() {
            walk(p, &mut out, &filter)?;
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    filter: &impl Fn(&InputKind) -> bool,
) -> Result<(), LoadError> {
    let rd = std::fs::read_dir(dir).map_err(|e| LoadError {
        path: dir.to_path_buf(),
        pos: None,
        msg: format!("cannot read directory: {e}"),
    })?;
    for entry in rd {
        let entry = entry.map_err(|e| LoadError {
            path: dir.to_path_buf(),
            pos: None,
            msg: e.to_string(),
        })?;
        let path = entry.path();
        let ft = entry.file_type().map_err(|e| LoadError {
            path: path.clone(),
            pos: None,
            msg: e.to_string(),
        })?;
        if ft.is_dir() {
            walk(&path, out, filter)?;
        } else if InputKind::of(&path).is_some_and(|k| filter(&k)) {
            out.push(path);
        }
    }
    Ok(())
}
