//! Generates the te expression parser from `src/te/expr.lalrpop`.
fn main() {
    lalrpop::process_src().expect("lalrpop grammar generation failed");
}
