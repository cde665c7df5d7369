//! Merging the PTX of one `gpu.module` translated in parts on several threads
//! (`TranslateOptions::part`): one header, each shared declaration or helper function
//! once, every kernel.

/// One top-level PTX item: a directive line, with the block it opens if any, and the
/// comment and blank lines before it.
struct Item {
    text: String,
    /// The directive itself (the first non-comment line), or empty for trailing trivia.
    head: String,
}

fn items(ptx: &str) -> Vec<Item> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut head = String::new();
    let mut depth = 0i64;
    for line in ptx.lines() {
        let opens = line.matches('{').count() as i64 - line.matches('}').count() as i64;
        let starts = depth == 0 && line.starts_with('.');
        if starts && !head.is_empty() {
            out.push(Item {
                text: std::mem::take(&mut cur),
                head: std::mem::take(&mut head),
            });
        }
        if starts {
            head = line.to_string();
        }
        cur.push_str(line);
        cur.push('\n');
        depth += opens;
    }
    out.push(Item { text: cur, head });
    out
}

fn is_header(head: &str) -> bool {
    [".version", ".target", ".address_size"]
        .iter()
        .any(|d| head.starts_with(d))
}

/// The parts as one PTX module; `None` when two parts define one name differently (the
/// caller then translates in one piece).
pub fn merge(parts: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut seen: std::collections::HashMap<String, String> = Default::default();
    for (k, part) in parts.iter().enumerate() {
        for item in items(part) {
            if k > 0 && (is_header(&item.head) || item.head.is_empty()) {
                continue;
            }
            if !item.head.is_empty() && !is_header(&item.head) {
                // A kernel appears in one part only; a declaration or helper may be in
                // several, and must then be the same text.
                let body = item.text.trim_start_matches(|c: char| c != '.').to_string();
                match seen.get(&item.head) {
                    Some(prev) if *prev == body => continue,
                    Some(_) => return None,
                    None => {
                        seen.insert(item.head.clone(), body);
                    }
                }
            }
            out.push_str(&item.text);
        }
    }
    Some(out)
}
