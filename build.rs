//! Generates the lalrpop parsers under `src/` (the affine expression grammar).

fn main() {
    // Build scripts report failure by panicking; a grammar error is a build error.
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("lalrpop grammar generation failed");
}
