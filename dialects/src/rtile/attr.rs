//! The data of `#rtile.program` and `#rtile.tile` (docs/dialects/rtile.md) and their text:
//! the IR keeps dialect attributes as `AttrKind::Dialect { dialect: "rtile", body }`, and
//! these functions print and parse `body`.

use std::fmt::Write;

/// An rProgram (Roller §3.2): one rTile per memory layer above global memory, the scale-out
/// grid and the micro-performance model's estimate — the payload of `#rtile.program`.
/// Constructed by `--construct-rtile` (crate `rtile-passes`).
#[derive(Clone, Debug, PartialEq)]
pub struct RProgram {
    /// Device name.
    pub device: String,
    /// The device description file the program was built for, when not a built-in device.
    pub device_file: Option<String>,
    /// Names of the axes the tiles are over (fused names like `h*w` after axis fusion);
    /// empty in parsed attributes without `axes` (the compute's own axes).
    pub axes: Vec<String>,
    /// Shared-memory-layer rTile: what one block (core) computes per step.
    pub block: Vec<u64>,
    /// Register-layer rTile: what one thread (a warp, with tensor cores) computes per step.
    pub thread: Vec<u64>,
    /// Storage padding of each input's shared-memory data tile, per dimension, in elements.
    pub pad: Vec<Vec<u64>>,
    /// Scale-out grid: blocks along each spatial axis, in axis order.
    pub grid: Vec<u64>,
    /// Threads per block.
    pub threads: u64,
    /// Whether the register tile runs on tensor cores (a warp tile of the instruction shape).
    pub tensor_core: bool,
    /// The MMA instruction shape `[m, n, k]` the register tile is a multiple of, with tensor
    /// cores (`mma = [16, 8, 16]`; absent: the device's preferred instruction).
    pub mma: Option<[u64; 3]>,
    /// Whether inputs are staged through shared memory; `false` for operators without data
    /// reuse, whose threads load straight from global memory (§3.2).
    pub staged: bool,
    /// ε the program was constructed under (its padding is within it).
    pub epsilon: f64,
    /// Estimated time, microseconds.
    pub est_us: f64,
    /// Footprint per layer, bytes: registers per thread, shared memory per block, global total.
    pub footprint: [u64; 3],
    /// Traffic per layer, bytes over the whole run: loaded into registers, loaded into shared
    /// memory, moved to and from global memory (loads and stores).
    pub traffic: [u64; 3],
}

impl RProgram {
    /// A program written by hand rather than constructed (tests, experiments): staged,
    /// over the compute's own axes, with no grid, ε or traffic recorded, a placeholder
    /// estimate of 1 µs and zero footprints (which the legality check accepts as "not
    /// recorded").
    pub fn manual(
        device: &str,
        block: &[u64],
        thread: &[u64],
        pad: Vec<Vec<u64>>,
        threads: u64,
    ) -> RProgram {
        RProgram {
            device: device.into(),
            device_file: None,
            axes: vec![],
            block: block.to_vec(),
            thread: thread.to_vec(),
            pad,
            grid: vec![],
            threads,
            tensor_core: false,
            mma: None,
            staged: true,
            epsilon: 0.0,
            est_us: 1.0,
            footprint: [0; 3],
            traffic: [0; 3],
        }
    }

    /// The tiles outermost first, as printed: `[block, thread]`.
    pub fn tiles(&self) -> [&[u64]; 2] {
        [&self.block, &self.thread]
    }

    /// Total blocks.
    pub fn grid_size(&self) -> u64 {
        self.grid.iter().product()
    }
}

/// Rounds a positive estimate to 4 significant digits, through its decimal text, so that the
/// printed value parses back to exactly the stored one.
pub fn round_estimate(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    let digits = x.log10().floor() as i64 + 1;
    let decimals = (4 - digits).clamp(0, 12) as usize;
    format!("{x:.decimals$}").parse().unwrap_or(x)
}

fn list(v: &[u64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn list2(v: &[Vec<u64>]) -> String {
    let items: Vec<String> = v.iter().map(|x| list(x)).collect();
    format!("[{}]", items.join(", "))
}

fn quote(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The body of `#rtile.program<...>` (starting with `program<`). `axes` is printed only when
/// `with_axes` (programs over fused axes).
pub fn program_body(p: &RProgram, with_axes: bool) -> String {
    let device = match &p.device_file {
        Some(f) => format!("{}, device_file = {}", quote(&p.device), quote(f)),
        None => quote(&p.device),
    };
    let mut s = format!(
        "program<device = {}, tiles = {}, pad = {}, grid = {}, threads = {}, est_us = {}, epsilon = {}",
        device,
        list2(&[p.block.clone(), p.thread.clone()]),
        list2(&p.pad),
        list(&p.grid),
        p.threads,
        p.est_us,
        p.epsilon
    );
    if p.tensor_core {
        s.push_str(", tensor_core = true");
    }
    if let Some(m) = p.mma {
        let _ = write!(s, ", mma = {}", list(&m));
    }
    if !p.staged {
        s.push_str(", staged = false");
    }
    if with_axes {
        let names: Vec<String> = p.axes.iter().map(|a| quote(a)).collect();
        let _ = write!(s, ", axes = [{}]", names.join(", "));
    }
    let _ = write!(
        s,
        ", footprint = {}, traffic = {}>",
        list(&p.footprint),
        list(&p.traffic)
    );
    s
}

/// The body of `#rtile.tile<...>` (starting with `tile<`).
pub fn tile_body(shape: &[u64], pad: &[Vec<u64>]) -> String {
    if pad.iter().all(|p| p.iter().all(|&x| x == 0)) {
        format!("tile<{}>", list(shape))
    } else {
        format!("tile<{}, pad = {}>", list(shape), list2(pad))
    }
}

/// A tiny cursor over the attribute body.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while self.s[self.pos..].starts_with(|c: char| c.is_whitespace()) {
            self.pos += self.s[self.pos..].chars().next().map_or(1, char::len_utf8);
        }
    }

    fn err(&self, msg: &str) -> String {
        format!("{msg} at offset {} of '{}'", self.pos, self.s)
    }

    fn eat(&mut self, p: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(p) {
            self.pos += p.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.err(&format!("expected '{p}'")))
        }
    }

    fn ident(&mut self) -> Result<&'a str, String> {
        self.ws();
        let rest = &self.s[self.pos..];
        let n = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if n == 0 {
            return Err(self.err("expected a field name"));
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    fn number_text(&mut self) -> Result<&'a str, String> {
        self.ws();
        let rest = &self.s[self.pos..];
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
            .unwrap_or(rest.len());
        if n == 0 {
            return Err(self.err("expected a number"));
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    fn uint(&mut self) -> Result<u64, String> {
        let t = self.number_text()?;
        t.parse()
            .map_err(|_| self.err(&format!("'{t}' is not a non-negative integer")))
    }

    fn float(&mut self) -> Result<f64, String> {
        let t = self.number_text()?;
        t.parse()
            .map_err(|_| self.err(&format!("'{t}' is not a number")))
    }

    fn boolean(&mut self) -> Result<bool, String> {
        match self.ident()? {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.err("expected true or false")),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect("\"")?;
        let mut o = String::new();
        let mut chars = self.s[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(o);
                }
                '\\' => match chars.next() {
                    Some((_, e)) => o.push(e),
                    None => break,
                },
                c => o.push(c),
            }
        }
        Err(self.err("unterminated string"))
    }

    fn seq<T>(
        &mut self,
        mut f: impl FnMut(&mut Self) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        self.expect("[")?;
        let mut v = Vec::new();
        if self.eat("]") {
            return Ok(v);
        }
        loop {
            v.push(f(self)?);
            if self.eat("]") {
                return Ok(v);
            }
            self.expect(",")?;
        }
    }

    fn uints(&mut self) -> Result<Vec<u64>, String> {
        self.seq(|c| c.uint())
    }

    fn uints2(&mut self) -> Result<Vec<Vec<u64>>, String> {
        self.seq(|c| c.uints())
    }

    fn end(&mut self) -> Result<(), String> {
        self.ws();
        if self.pos == self.s.len() {
            Ok(())
        } else {
            Err(self.err("unexpected text"))
        }
    }
}

fn three(v: Vec<u64>, name: &str) -> Result<[u64; 3], String> {
    <[u64; 3]>::try_from(v).map_err(|_| format!("'{name}' must have 3 entries"))
}

/// Parses the body of `#rtile.program<...>` (fields in any order). `axes` is empty when the
/// text has none (the program tiles its compute's own axes).
pub fn parse_program_body(body: &str) -> Result<RProgram, String> {
    let mut c = Cursor { s: body, pos: 0 };
    c.expect("program")?;
    c.expect("<")?;
    let mut p = RProgram {
        device: String::new(),
        device_file: None,
        axes: Vec::new(),
        block: Vec::new(),
        thread: Vec::new(),
        pad: Vec::new(),
        grid: Vec::new(),
        threads: 0,
        tensor_core: false,
        mma: None,
        staged: true,
        epsilon: 0.0,
        est_us: 0.0,
        footprint: [0; 3],
        traffic: [0; 3],
    };
    let mut seen: Vec<&str> = Vec::new();
    loop {
        let field = c.ident()?;
        if seen.contains(&field) {
            return Err(c.err(&format!("duplicate field '{field}'")));
        }
        seen.push(field);
        c.expect("=")?;
        match field {
            "device" => p.device = c.string()?,
            "device_file" => p.device_file = Some(c.string()?),
            "tiles" => {
                let t = c.uints2()?;
                let [b, th] = <[Vec<u64>; 2]>::try_from(t)
                    .map_err(|_| c.err("'tiles' must be [block, thread]"))?;
                p.block = b;
                p.thread = th;
            }
            "pad" => p.pad = c.uints2()?,
            "grid" => p.grid = c.uints()?,
            "threads" => p.threads = c.uint()?,
            "est_us" => p.est_us = c.float()?,
            "epsilon" => p.epsilon = c.float()?,
            "tensor_core" => p.tensor_core = c.boolean()?,
            "mma" => p.mma = Some(three(c.uints()?, "mma")?),
            "staged" => p.staged = c.boolean()?,
            "axes" => p.axes = c.seq(|c| c.string())?,
            "footprint" => p.footprint = three(c.uints()?, "footprint")?,
            "traffic" => p.traffic = three(c.uints()?, "traffic")?,
            other => return Err(c.err(&format!("unknown field '{other}'"))),
        }
        if c.eat(">") {
            break;
        }
        c.expect(",")?;
    }
    c.end()?;
    for required in ["device", "tiles", "grid", "threads", "est_us"] {
        if !seen.contains(&required) {
            return Err(format!("#rtile.program needs '{required}'"));
        }
    }
    Ok(p)
}

/// Parses the body of `#rtile.tile<...>`: the shape and the storage padding (empty if none).
pub fn parse_tile_body(body: &str) -> Result<(Vec<u64>, Vec<Vec<u64>>), String> {
    let mut c = Cursor { s: body, pos: 0 };
    c.expect("tile")?;
    c.expect("<")?;
    let shape = c.uints()?;
    let mut pad = Vec::new();
    if c.eat(",") {
        c.expect("pad")?;
        c.expect("=")?;
        pad = c.uints2()?;
    }
    c.expect(">")?;
    c.end()?;
    Ok((shape, pad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_text_shape() {
        let p = parse_program_body(
            r#"program<device = "h100", tiles = [[128, 128, 32], [8, 8, 1]], pad = [[0, 4], [0, 4]], grid = [512, 32], threads = 256, est_us = 812.3>"#,
        )
        .unwrap();
        assert_eq!(
            (p.block, p.thread, p.threads),
            (vec![128, 128, 32], vec![8, 8, 1], 256)
        );
        assert_eq!(p.est_us, 812.3);
        assert!(p.staged && !p.tensor_core);
    }

    #[test]
    fn program_errors() {
        let e = parse_program_body("program<device = \"v100\">").unwrap_err();
        assert!(e.contains("needs 'tiles'"), "{e}");
        let e = parse_program_body("program<threads = -1>").unwrap_err();
        assert!(e.contains("not a non-negative integer"), "{e}");
        let e = parse_program_body("program<bogus = 1>").unwrap_err();
        assert!(e.contains("unknown field 'bogus'"), "{e}");
        let e = parse_program_body("program<threads = 1, threads = 2>").unwrap_err();
        assert!(e.contains("duplicate"), "{e}");
    }

    #[test]
    fn tile_round_trip() {
        let t = tile_body(&[4, 4, 2], &[vec![0, 1], vec![0, 1]]);
        assert_eq!(t, "tile<[4, 4, 2], pad = [[0, 1], [0, 1]]>");
        assert_eq!(
            parse_tile_body(&t).unwrap(),
            (vec![4, 4, 2], vec![vec![0, 1], vec![0, 1]])
        );
        assert_eq!(
            parse_tile_body("tile<[8, 8, 1]>").unwrap(),
            (vec![8, 8, 1], vec![])
        );
        assert!(parse_tile_body("tile<[8, 8, 1]").is_err());
    }

    #[test]
    fn estimate_rounding() {
        assert_eq!(round_estimate(812.345_678), 812.3);
        assert_eq!(round_estimate(35050.7), 35051.0);
        assert_eq!(round_estimate(0.041_234_5), 0.04123);
    }
}
