fn main() {
    for arg in std::env::args().skip(1) {
        let t = std::time::Instant::now();
        let mut loader = retrylint::load::Loader::new(Default::default());
        let root = match loader.load_root(std::path::Path::new(&arg)) {
            Ok(r) => r,
            Err(e) => {
                println!("{arg}: {e}");
                continue;
            }
        };
        let t1 = t.elapsed();
        match retrylint::model::build(&mut loader, root) {
            Ok(api) => println!(
                "{arg}: {} ops, {} files, {:?} parse, {:?} total",
                api.operations.len(),
                loader.file_count(),
                t1,
                t.elapsed()
            ),
            Err(e) => println!("{arg}: ERROR {e}"),
        }
    }
}
