//! What a dump leaves out and only the program's GLSL source says: the `source.shader_test`
//! (piglit's format, which shader-db's `run` reads) beside Mesa's dumps.
//!
//! A geometry shader's input primitive sets how many input-vertex URB handles its thread
//! payload holds, and so where its pushed inputs sit ([`crate::thread_inputs::InputLayout::of_gs`]);
//! Mesa takes it from `nir->info.gs.vertices_in`, which no dump prints. GLSL declares it
//! with an input layout qualifier, `layout(triangles) in;` (GLSL 1.50 section 4.3.8.1:
//! `points` 1 vertex, `lines` 2, `lines_adjacency` 4, `triangles` 3,
//! `triangles_adjacency` 6), possibly beside `invocations = N`.

/// The vertex count of the input primitive declared in the `[geometry shader]` sections of
/// `shader_test`; `None` when there is none, or the sections declare different ones.
pub fn gs_vertices_in(shader_test: &str) -> Option<u32> {
    let mut found = None;
    let mut in_gs = false;
    let mut source = String::new();
    for line in shader_test.lines() {
        if line.starts_with('[') {
            in_gs = line.trim_end() == "[geometry shader]";
            continue;
        }
        if in_gs {
            source.push_str(line);
            source.push('\n');
        }
    }
    let code = without_comments(&source);
    let mut rest = code.as_str();
    while let Some(at) = rest.find("layout") {
        let before_ok = rest[..at].chars().next_back().is_none_or(|c| !is_ident(c));
        rest = &rest[at + "layout".len()..];
        let Some(args) = rest.trim_start().strip_prefix('(') else {
            continue;
        };
        let Some(close) = args.find(')') else { break };
        let after = args[close + 1..].trim_start();
        let declares_input = after
            .strip_prefix("in")
            .is_some_and(|r| r.trim_start().starts_with(';'));
        if before_ok && declares_input {
            for q in args[..close].split(',') {
                let name = q.split('=').next().unwrap_or("").trim();
                let n = match name {
                    "points" => 1,
                    "lines" => 2,
                    "lines_adjacency" => 4,
                    "triangles" => 3,
                    "triangles_adjacency" => 6,
                    _ => continue,
                };
                if found.is_some_and(|f| f != n) {
                    return None;
                }
                found = Some(n);
            }
        }
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `code` with its `//` and `/* */` comments blanked.
fn without_comments(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                let end = rest[l..].find('\n').map_or(rest.len(), |e| l + e);
                rest = &rest[end..];
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::gs_vertices_in;

    #[test]
    fn input_primitives() {
        let test = |gs: &str| {
            format!("[require]\nGLSL >= 1.50\n\n[vertex shader passthrough]\n\n[geometry shader]\n{gs}\n[fragment shader]\nlayout(points) in;\n")
        };
        assert_eq!(
            gs_vertices_in(&test(
                "layout(triangles) in;\nlayout(triangle_strip, max_vertices=3) out;"
            )),
            Some(3)
        );
        assert_eq!(
            gs_vertices_in(&test("layout ( lines_adjacency , invocations = 2 ) in ;")),
            Some(4)
        );
        assert_eq!(
            gs_vertices_in(&test(
                "// layout(points) in;\n/* layout(lines) in; */ layout(triangles_adjacency) in;"
            )),
            Some(6)
        );
        // An input variable's layout is not the primitive's; the fragment shader's is not read.
        assert_eq!(
            gs_vertices_in(&test("layout(location = 0) in vec4 c[];")),
            None
        );
        assert_eq!(gs_vertices_in(&test("mylayout(points) in;")), None);
        let two = test("layout(points) in;").replace(
            "[fragment shader]",
            "[geometry shader]\nlayout(lines) in;\n[fragment shader]",
        );
        assert_eq!(gs_vertices_in(&two), None);
        assert_eq!(
            gs_vertices_in("[geometry shader]\nlayout(points) in;"),
            Some(1)
        );
    }
}
