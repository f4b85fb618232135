//! `cargo bench --bench sandbox`: what the sandbox costs (issue 3,
//! "Performance").
//!
//! 1. Builds the correct fixtures (`c-listing.c`, `rust-trait`,
//!    `rust-extern`) as the grader does.
//! 2. For every bundled case (public and hidden), every tested function and
//!    every fixture, runs the test twice, interleaved: sandboxed (plan →
//!    `WorkerRequest` → a test child in the fixture's box → `outcome` →
//!    `judge`, as `grader grade` does) and in-process with no isolation (the
//!    same `.so` loaded into this process, `execute` → `judge`). Both must
//!    pass. The whole set runs [`RUNS`] times.
//! 3. Prints, per fixture and overall, the median per-test wall time of each
//!    way, the median overhead per test, the run totals and their ratio
//!    (medians over the runs).
//! 4. Prints what a submission that loops forever costs beyond its time
//!    limit, and the peak RSS of the real `grader grade` while a fixture
//!    prints 200 MB.
//! 5. Prints what recording `solve`'s writes costs (`grader check`'s run
//!    for the first rule-breaking step): each public `solve` case, traced
//!    and untraced in turn, for the write watch (`c-listing.c`) and the
//!    Rust lab crate's recording board (`rust-trait`); medians, their
//!    ratio, and the cost per recorded write
//!    (`SANDBOX_BENCH_TRACE_ONLY=1` runs this step alone).
//! 6. Prints what making and dropping a box costs, per kind of submission
//!    (its process, namespaces, uid, cgroup slot, folder and private root).
//!
//! The machine is shared: the load average is printed at the start and the
//! end. Any test that does not pass makes the bench fail (exit status 1).

fn main() -> std::process::ExitCode {
    match bench::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("sandbox bench failed: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

mod bench {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use anyhow::{Context, bail};
    use grader::case::{Case, CaseSet};
    use grader::check::{self, Judgement};
    use grader::protocol::{CodeKind, Limits, WorkerRequest};
    use grader::runner::grade_plan::GradePlan;
    use grader::runner::outcome::outcome;
    use grader::runner::session::Session;
    use grader::sandbox::SandboxEnv;
    use grader::sandbox::SubmissionBox;
    use grader::submission::build::{self, BuildContext};
    use grader::submission::discover::{self, Submission, SubmissionKind};
    use grader::verdict::{Function, Verdict};
    use grader::worker::library::CLibrary;

    /// Times the whole set of tests is run.
    const RUNS: usize = 5;

    /// The correct fixtures, under `submissions/`.
    const FIXTURES: [&str; 3] = ["c-listing.c", "rust-trait", "rust-extern"];

    /// Time limit of the looping submission's test.
    const LOOP_LIMIT_MS: u64 = 1000;

    /// The source tree this bench was built from.
    fn source_dir() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    /// One built fixture: its library, for the worker and loaded here.
    struct Fixture<'env> {
        name: &'static str,
        library: CLibrary,
        /// The fixture's grading session (its box, made once and built
        /// in, as `grader grade` does per submission): every sandboxed
        /// test of it runs there.
        session: Session<'env>,
        /// A second session of the same submission whose tests each
        /// confine themselves in a child of init (no test zygote), for the
        /// side-by-side figure.
        per_test: Session<'env>,
    }

    /// Wall times of one test in one run, in milliseconds.
    #[derive(Clone, Copy)]
    struct Sample {
        sandboxed: f64,
        /// The same test in the box without a test zygote.
        per_test: f64,
        in_process: f64,
        /// The sandboxed test's spawn-to-reap time (`TestRun::wall_ms`,
        /// whole milliseconds).
        worker_wall: f64,
        /// The test's time as `outcome` gives it: the worker's CPU time,
        /// measured by the grader (whole milliseconds).
        worker_code: f64,
    }

    /// What [`time_sandboxed`] measured.
    struct Sandboxed {
        wall: f64,
        worker_wall: f64,
        worker_code: f64,
    }

    /// Runs the whole bench.
    pub fn run() -> anyhow::Result<()> {
        let started = Instant::now();
        println!("sandbox bench: load average at start: {}", load_average());
        let env = SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader-worker"));
        let mut per_test_env =
            SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader-worker"));
        per_test_env.test_zygote = false;
        println!("safeguards active: {}", env.active().join(", "));
        for notice in env.notices() {
            println!("notice: {notice}");
        }

        // The bundled folder, hidden cases included (the binary holds only
        // the public ones). Tests run as `grade` runs them: one plan, one
        // session per fixture, `Session::test` per test.
        let plan_with = |sandbox| -> anyhow::Result<GradePlan> {
            Ok(GradePlan {
                cases: grader::case::load(&[source_dir().join("cases")])?,
                build: BuildContext::new().context("cannot find the lab crate")?,
                sandbox,
                jobs: 1,
                limits: Default::default(),
            })
        };
        let plan = plan_with(env)?;
        let per_test_plan = plan_with(per_test_env)?;
        let (ctx, env, cases) = (&plan.build, &plan.sandbox, &plan.cases);
        let submissions: Vec<Submission> = FIXTURES
            .iter()
            .map(|name| discover::classify(&source_dir().join("submissions").join(name)))
            .collect();
        let mut fixtures = build_fixtures(&submissions, &plan, &per_test_plan)?;
        let tests: Vec<(&Case, Function)> = cases
            .cases
            .iter()
            .flat_map(|case| case.tests.iter().map(move |&f| (case, f)))
            .collect();
        println!(
            "{} cases ({} hidden), {} tests per fixture, {} fixtures, {RUNS} runs",
            cases.cases.len(),
            cases.cases.iter().filter(|c| c.hidden).count(),
            tests.len(),
            fixtures.len()
        );

        if std::env::var_os("SANDBOX_BENCH_TRACE_ONLY").is_some() {
            // Only step 5, for a quick look at the trace's cost.
            return trace_cost(&mut fixtures, &plan);
        }
        // samples[fixture][test][run]
        let mut samples = vec![vec![Vec::with_capacity(RUNS); tests.len()]; fixtures.len()];
        for run in 0..RUNS {
            for (f, fixture) in fixtures.iter_mut().enumerate() {
                for (t, &(case, function)) in tests.iter().enumerate() {
                    // Alternate which way goes first, so neither always
                    // runs on a warm cache.
                    let sandboxed_first = (run + t) % 2 == 0;
                    let (sb, in_process) = if sandboxed_first {
                        let s = time_sandboxed(fixture, case, function, false)?;
                        (s, time_in_process(fixture, cases, case, function)?)
                    } else {
                        let i = time_in_process(fixture, cases, case, function)?;
                        (time_sandboxed(fixture, case, function, false)?, i)
                    };
                    let per_test = time_sandboxed(fixture, case, function, true)?;
                    samples[f][t].push(Sample {
                        sandboxed: sb.wall,
                        per_test: per_test.wall,
                        in_process,
                        worker_wall: sb.worker_wall,
                        worker_code: sb.worker_code,
                    });
                }
            }
        }
        print_summary(&fixtures, &samples);

        let mut forks = fork_baseline();
        println!(
            "floor: fork + exit + wait of this process (no exec, no sandbox): {:.3} ms median of {}",
            median(&mut forks),
            forks.len()
        );
        let mut exec = exec_baseline()?;
        println!(
            "baseline: fork+exec+wait of `grader --version` (no sandbox): {:.3} ms median of {}",
            median(&mut exec),
            exec.len()
        );

        let loop_costs = looping_cost(ctx, cases, env)?;
        let limit = LOOP_LIMIT_MS as f64;
        let over: Vec<f64> = loop_costs.iter().map(|(wall, _)| wall - limit).collect();
        let cpu_over: Vec<f64> = loop_costs.iter().map(|(_, cpu)| cpu - limit).collect();
        println!(
            "looping submission (hostile-infinite-loop.c, solve, limit {LOOP_LIMIT_MS} ms): wall - limit = {:.1} ms median of {} ({}); worker CPU - limit = {:.0} ms ({}) [target <= 100 ms]",
            median(&mut over.clone()),
            over.len(),
            list(&over),
            median(&mut cpu_over.clone()),
            list(&cpu_over)
        );

        trace_cost(&mut fixtures, &plan)?;

        build_overhead(ctx, env)?;
        box_cost(ctx, env)?;

        let rss = flood_rss()?;
        println!(
            "grader grade while hostile-print-flood.c prints 200 MB ({:.0} MiB dropped by the cap, every test passed, {:.1} s): peak RSS of the grader process {:.1} MB (VmHWM); {:.1} MB including its reaped children (wait4 rusage: worker, cc) [target < 100 MB]",
            rss.dropped_mb, rss.seconds, rss.own_mb, rss.with_children_mb
        );

        println!("load average at end: {}", load_average());
        println!("bench took {:.1} s", started.elapsed().as_secs_f64());
        Ok(())
    }

    /// Opens a session for each correct fixture (its box, its build), and
    /// loads each into this process too.
    fn build_fixtures<'env>(
        submissions: &'env [Submission],
        plan: &'env GradePlan,
        per_test_plan: &'env GradePlan,
    ) -> anyhow::Result<Vec<Fixture<'env>>> {
        let mut fixtures = Vec::new();
        for (name, submission) in FIXTURES.into_iter().zip(submissions) {
            let start = Instant::now();
            let open = |plan| {
                Session::open(submission, plan)
                    .map_err(|report| anyhow::anyhow!("{name}: {}", report.message))
            };
            let session = open(plan)?;
            let per_test = open(per_test_plan)?;
            let code = session.code().to_path_buf();
            let library = CLibrary::load(&code, &code)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("cannot load {name} in-process"))?;
            println!(
                "built and loaded {name} in {:.1} s",
                start.elapsed().as_secs_f64()
            );
            fixtures.push(Fixture {
                name,
                library,
                session,
                per_test,
            });
        }
        Ok(fixtures)
    }

    /// The views of a box for the submission at `path` (its build's and its
    /// tests').
    fn views_for(ctx: &BuildContext, path: &Path) -> Vec<grader::sandbox::view::HostView> {
        match discover::classify(path).kind {
            Ok(kind) => ctx.views_for(kind),
            Err(_) => ctx.views_for(SubmissionKind::Library),
        }
    }

    /// Classifies and builds one submission; returns its library.
    fn build_submission(
        ctx: &BuildContext,
        path: &Path,
        sandbox: &mut SubmissionBox<'_>,
    ) -> anyhow::Result<PathBuf> {
        let submission = discover::classify(path);
        let kind = submission
            .kind
            .clone()
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("cannot classify {}", path.display()))?;
        let built = build::build(&submission, kind, ctx, sandbox)
            .with_context(|| format!("cannot build {}", path.display()))?;
        Ok(built.path().to_path_buf())
    }

    /// One test through a sandboxed worker, as `grader grade` runs it;
    /// fails unless it passes. Returns the wall time in milliseconds.
    fn time_sandboxed(
        fixture: &mut Fixture<'_>,
        case: &Case,
        function: Function,
        per_test: bool,
    ) -> anyhow::Result<Sandboxed> {
        let start = Instant::now();
        let session = if per_test {
            &mut fixture.per_test
        } else {
            &mut fixture.session
        };
        let judged = session.test(case, function, false);
        let wall = ms(start.elapsed());
        let report = judged.report;
        if report.verdict != Verdict::Pass {
            bail!(
                "{} {} {function} sandboxed: {} ({}), expected pass",
                fixture.name,
                case.name,
                report.verdict,
                report.message
            );
        }
        Ok(Sandboxed {
            wall,
            worker_wall: report.wall_ms.unwrap_or(0.0),
            worker_code: report.time_ms.unwrap_or(0.0),
        })
    }

    /// The same test with the library loaded in this process, no isolation;
    /// fails unless it passes. Returns the wall time in milliseconds.
    fn time_in_process(
        fixture: &Fixture,
        cases: &CaseSet,
        case: &Case,
        function: Function,
    ) -> anyhow::Result<f64> {
        let start = Instant::now();
        let probe = check::plan(case, function);
        let response = check::execute(&fixture.library, &probe).with_context(|| {
            format!(
                "cannot run {} {} {function} in-process",
                fixture.name, case.name
            )
        })?;
        let judgement = check::judge(case, cases.config.find_empty_policy, &probe, &response);
        let elapsed = ms(start.elapsed());
        expect_pass(judgement, fixture, case, function, "in-process")?;
        Ok(elapsed)
    }

    fn expect_pass(
        judgement: Judgement,
        fixture: &Fixture,
        case: &Case,
        function: Function,
        how: &str,
    ) -> anyhow::Result<()> {
        match judgement {
            Judgement::Pass => Ok(()),
            Judgement::Wrong(failure) => bail!(
                "{} {} {function} {how}: wrong ({}), expected pass",
                fixture.name,
                case.name,
                failure.message
            ),
            Judgement::BadProbe(error) => bail!(
                "{} {} {function} {how}: the grader's probe is malformed ({error})",
                fixture.name,
                case.name
            ),
        }
    }

    /// Prints the per-fixture and overall figures.
    fn print_summary(fixtures: &[Fixture], samples: &[Vec<Vec<Sample>>]) {
        println!();
        println!(
            "{:<12} {:>6} {:>12} {:>12} {:>12} {:>12} {:>14} {:>14} {:>7}",
            "fixture",
            "tests",
            "zygote ms",
            "1-child ms",
            "in-proc ms",
            "overhead ms",
            "total zygote",
            "total in-proc",
            "ratio"
        );
        let mut all_tests = Vec::new();
        for (fixture, tests) in fixtures.iter().zip(samples) {
            let tests: Vec<&Vec<Sample>> = tests.iter().collect();
            print_row(fixture.name, &tests);
            all_tests.extend(tests);
        }
        print_row("overall", &all_tests);
        let overall = |f: &dyn Fn(&Sample) -> f64| {
            let mut medians: Vec<f64> = all_tests
                .iter()
                .map(|runs| median(&mut runs.iter().map(f).collect::<Vec<_>>()))
                .collect();
            median(&mut medians)
        };
        println!(
            "sandboxed test, overall medians: {:.3} ms in all, of which spawn to reap {:.0} ms (whole ms), the test's CPU time {:.3} ms (the grader's measurement, whole ms)",
            overall(&|s| s.sandboxed),
            overall(&|s| s.worker_wall),
            overall(&|s| s.worker_code)
        );
        println!(
            "(per-test figures: median over tests of each test's median over {RUNS} runs; overhead: of sandboxed - in-process paired per run; totals: median of the {RUNS} run totals, in ms) [target: overhead <= 0.3 ms a C test; zygote: the box's test zygote forks each test; 1-child: each test confines itself in a child of init, as before the zygote]"
        );
        println!();
    }

    /// One line of the summary for a group of tests (`tests[test][run]`).
    fn print_row(name: &str, tests: &[&Vec<Sample>]) {
        let per_test = |f: &dyn Fn(&Sample) -> f64| {
            let mut medians: Vec<f64> = tests
                .iter()
                .map(|runs| median(&mut runs.iter().map(f).collect::<Vec<_>>()))
                .collect();
            median(&mut medians)
        };
        let sandboxed = per_test(&|s| s.sandboxed);
        let one_child = per_test(&|s| s.per_test);
        let in_process = per_test(&|s| s.in_process);
        let overhead = per_test(&|s| s.sandboxed - s.in_process);
        let total = |f: &dyn Fn(&Sample) -> f64| {
            let mut totals: Vec<f64> = (0..RUNS)
                .map(|run| tests.iter().map(|runs| f(&runs[run])).sum())
                .collect();
            median(&mut totals)
        };
        let total_sandboxed = total(&|s| s.sandboxed);
        let total_in_process = total(&|s| s.in_process);
        println!(
            "{name:<12} {:>6} {sandboxed:>12.3} {one_child:>12.3} {in_process:>12.3} {overhead:>12.3} {total_sandboxed:>14.1} {total_in_process:>14.1} {:>6.1}x",
            tests.len(),
            total_sandboxed / total_in_process
        );
    }

    /// Runs of each way in [`trace_cost`].
    const TRACE_RUNS: usize = 5;

    /// Traced vs untraced `solve` on every public case, for the write watch
    /// and the recording board: median wall time of each (taking turns),
    /// their ratio, the writes recorded and the cost of one.
    fn trace_cost(fixtures: &mut [Fixture<'_>], plan: &GradePlan) -> anyhow::Result<()> {
        println!(
            "{:<12} {:<16} {:>8} {:>12} {:>12} {:>7} {:>12}",
            "fixture", "case", "writes", "untraced ms", "traced ms", "ratio", "us/write"
        );
        for fixture in fixtures.iter_mut() {
            if !["c-listing.c", "rust-trait"].contains(&fixture.name) {
                continue;
            }
            for case in plan.cases.cases.iter().filter(|c| !c.hidden) {
                if !case.tests.contains(&Function::Solve) {
                    continue;
                }
                let (mut plain, mut traced, mut writes) = (Vec::new(), Vec::new(), 0u64);
                for run in 0..TRACE_RUNS {
                    for trace in [run % 2 == 0, run % 2 != 0] {
                        let start = Instant::now();
                        let judged = fixture.session.test(case, Function::Solve, trace);
                        let wall = ms(start.elapsed());
                        if judged.report.verdict != Verdict::Pass {
                            bail!(
                                "{} {} traced={trace}: {} ({})",
                                fixture.name,
                                case.name,
                                judged.report.verdict,
                                judged.report.message
                            );
                        }
                        if trace {
                            if judged.trace_source.is_none() {
                                bail!("{} {}: no trace came back", fixture.name, case.name);
                            }
                            writes = recorded_writes(&judged.report.message);
                            traced.push(wall);
                        } else {
                            plain.push(wall);
                        }
                    }
                }
                let (plain, traced) = (median(&mut plain), median(&mut traced));
                println!(
                    "{:<12} {:<16} {writes:>8} {plain:>12.2} {traced:>12.2} {:>6.1}x {:>12.2}",
                    fixture.name,
                    case.name,
                    traced / plain,
                    (traced - plain) * 1000.0 / writes.max(1) as f64
                );
            }
        }
        println!(
            "(median of {TRACE_RUNS} sandboxed runs each, taking turns; us/write: the difference over the writes and undos recorded)"
        );
        println!();
        Ok(())
    }

    /// The writes and undos a passing traced test's message counts ("the
    /// search wrote 8 digit(s) and undid 0; ...").
    fn recorded_writes(message: &str) -> u64 {
        let number_after = |word: &str| {
            message
                .split_once(word)
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .and_then(|n| {
                    n.trim_end_matches(|c: char| !c.is_ascii_digit())
                        .parse::<u64>()
                        .ok()
                })
                .unwrap_or(0)
        };
        number_after("wrote ") + number_after("undid ")
    }

    /// Build overhead: each correct C and Rust fixture built [`RUNS`] times
    /// in a fresh box (box made, sources copied, compiler confined, product
    /// copied out, box removed) and, interleaved, by the same compiler
    /// command run directly with no confinement; medians side by side.
    fn build_overhead(ctx: &BuildContext, env: &SandboxEnv) -> anyhow::Result<()> {
        let lab = source_dir().join("lab");
        for name in ["c-listing.c", "rust-trait"] {
            let path = source_dir().join("submissions").join(name);
            let (mut boxed, mut direct) = (Vec::new(), Vec::new());
            for _ in 0..RUNS {
                let start = Instant::now();
                let mut sandbox = SubmissionBox::open(env, &views_for(ctx, &path))
                    .context("cannot make a box")?;
                build_submission(ctx, &path, &mut sandbox)?;
                drop(sandbox);
                boxed.push(ms(start.elapsed()));

                let scratch = tempfile::tempdir()?;
                let start = Instant::now();
                let status = if name.ends_with(".c") {
                    Command::new("cc")
                        .args(["-O2", "-shared", "-fPIC", "-pthread", "-I"])
                        .arg(lab.join("include"))
                        .arg("-o")
                        .arg(scratch.path().join("lib.so"))
                        .arg(&path)
                        .status()?
                } else {
                    Command::new("cargo")
                        .args(["build", "--release", "--offline", "--lib", "--quiet"])
                        .current_dir(&path)
                        .env("CARGO_TARGET_DIR", scratch.path())
                        .status()?
                };
                if !status.success() {
                    bail!("the direct build of {name} failed");
                }
                direct.push(ms(start.elapsed()));
            }
            let (b, d) = (median(&mut boxed), median(&mut direct));
            println!(
                "build {name}: in a box {b:.0} ms, direct {d:.0} ms, overhead {:.0} ms ({:.2}x), medians of {RUNS}",
                b - d,
                b / d
            );
        }
        Ok(())
    }

    /// What making a box costs (its process, namespaces, uid, cgroup slot,
    /// folder and private root), then dropping it: per kind of
    /// submission, [`BOX_RUNS`] times, median and p90.
    fn box_cost(ctx: &BuildContext, env: &SandboxEnv) -> anyhow::Result<()> {
        const BOX_RUNS: usize = 20;
        for kind in [
            SubmissionKind::C,
            SubmissionKind::Rust,
            SubmissionKind::Library,
            SubmissionKind::Python,
        ] {
            let views = ctx.views_for(kind);
            let entries: usize = views.iter().map(|v| v.entries.len()).sum();
            let mut times = Vec::new();
            for _ in 0..BOX_RUNS {
                let start = Instant::now();
                let sandbox = SubmissionBox::open(env, &views).context("cannot make a box")?;
                drop(sandbox);
                times.push(ms(start.elapsed()));
            }
            let mut sorted = times.clone();
            sorted.sort_by(f64::total_cmp);
            println!(
                "box for a {kind:?} submission ({} views, {entries} entries): made and dropped in {:.1} ms median of {BOX_RUNS} (p90 {:.1} ms)",
                views.len(),
                median(&mut times),
                sorted[BOX_RUNS * 9 / 10]
            );
        }
        Ok(())
    }

    /// Wall time of the looping fixture's `solve` test under a
    /// [`LOOP_LIMIT_MS`] limit, [`RUNS`] times; each must be a timeout.
    fn looping_cost(
        ctx: &BuildContext,
        cases: &CaseSet,
        env: &SandboxEnv,
    ) -> anyhow::Result<Vec<(f64, f64)>> {
        let path = source_dir().join("submissions/hostile-infinite-loop.c");
        let mut sandbox =
            SubmissionBox::open(env, &views_for(ctx, &path)).context("cannot make a box")?;
        let code = build_submission(ctx, &path, &mut sandbox)?;
        let case = cases
            .cases
            .iter()
            .find(|c| c.tests.contains(&Function::Solve))
            .context("no bundled case tests solve")?;
        let request = WorkerRequest {
            kind: CodeKind::Library,
            code,
            probe: check::plan(case, Function::Solve),
            limits: Limits {
                time_limit_ms: LOOP_LIMIT_MS,
                memory_limit_mb: cases.config.memory_limit_mb,
            },
            python: None,
            trace: false,
            reference_legal: false,
            deep_stop: false,
        };
        let mut walls = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            let run = sandbox
                .run_test(&request)
                .context("cannot run the looping fixture")?;
            let verdict = match outcome(&run, &request.limits) {
                Ok(_) => Verdict::Pass,
                Err(outcome) => outcome.verdict,
            };
            let wall = ms(start.elapsed());
            if verdict != Verdict::Timeout {
                bail!(
                    "the looping fixture got {verdict} on {}, expected timeout",
                    case.name
                );
            }
            walls.push((wall, run.cpu_ms as f64));
        }
        Ok(walls)
    }

    /// Wall time of a bare fork+exec+wait of the grader binary
    /// (`--version`), 20 times: the floor under starting any process per test.
    fn exec_baseline() -> anyhow::Result<Vec<f64>> {
        let mut times = Vec::new();
        for _ in 0..20 {
            let start = Instant::now();
            let status = Command::new(env!("CARGO_BIN_EXE_grader"))
                .arg("--version")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .context("cannot run grader --version")?;
            times.push(ms(start.elapsed()));
            if !status.success() {
                bail!("grader --version failed: {status}");
            }
        }
        Ok(times)
    }

    /// Wall times of a bare fork + `_exit` + wait of this process, the
    /// floor under any test in a process of its own.
    fn fork_baseline() -> Vec<f64> {
        let mut times = Vec::new();
        for _ in 0..200 {
            let start = Instant::now();
            // SAFETY: the child calls only `_exit`.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // SAFETY: async-signal-safe.
                unsafe { libc::_exit(0) };
            }
            let mut status = 0;
            // SAFETY: `status` is valid for writes.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            times.push(ms(start.elapsed()));
        }
        times
    }

    /// Peak memory of a `grader grade` run.
    struct Rss {
        /// The grader process alone (its `VmHWM`, polled).
        own_mb: f64,
        /// `wait4`'s `ru_maxrss`: the largest of the grader and the children
        /// it reaped.
        with_children_mb: f64,
        seconds: f64,
        /// Output the grader counted and dropped, in MiB.
        dropped_mb: f64,
    }

    /// Runs the real `grader grade` on a copy of `hostile-print-flood.c`
    /// and one campus case, and measures its peak RSS. It must pass.
    fn flood_rss() -> anyhow::Result<Rss> {
        let tmp = tempfile::Builder::new()
            .prefix("grader-bench-")
            .tempdir()
            .context("cannot make a temp folder")?;
        let subs = tmp.path().join("submissions");
        let cases_dir = tmp.path().join("cases");
        std::fs::create_dir(&subs).context("cannot make the submissions folder")?;
        std::fs::create_dir(&cases_dir).context("cannot make the cases folder")?;
        let flood = source_dir().join("submissions/hostile-print-flood.c");
        std::fs::copy(&flood, subs.join("hostile-print-flood.c"))
            .with_context(|| format!("cannot copy {}", flood.display()))?;
        let cases_src = source_dir().join("cases");
        std::fs::copy(cases_src.join("grader.toml"), cases_dir.join("grader.toml"))
            .context("cannot copy cases/grader.toml")?;
        let campus = std::fs::read_to_string(cases_src.join("campus.toml"))
            .context("cannot read cases/campus.toml")?;
        std::fs::write(cases_dir.join("campus.toml"), first_case(&campus)?)
            .context("cannot write the campus case")?;

        let report = tmp.path().join("report.json");
        let start = Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_grader"))
            .arg("grade")
            .arg(&subs)
            .arg("--cases")
            .arg(&cases_dir)
            .arg("--json")
            .arg(&report)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start grader grade")?;
        let pid = child.id() as libc::pid_t;
        let status_path = format!("/proc/{pid}/status");
        let mut own_kb = 0u64;
        let (status, usage) = loop {
            if let Some(kb) = vm_hwm_kb(&status_path) {
                own_kb = own_kb.max(kb);
            }
            let mut status = 0;
            // SAFETY: rusage is plain data, all-zero is a valid value.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: `pid` is our own child, not yet reaped (`child` is
            // never waited on through std); `status` and `usage` are
            // writable locals.
            let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
            match reaped {
                0 => std::thread::sleep(Duration::from_millis(2)),
                r if r == pid => break (status, usage),
                _ => bail!(
                    "cannot wait for grader grade: {}",
                    std::io::Error::last_os_error()
                ),
            }
        };
        drop(child);
        let seconds = start.elapsed().as_secs_f64();
        if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
            bail!(
                "grader grade on hostile-print-flood.c did not pass every test (wait status {status:#x}); run it by hand to see why"
            );
        }
        let dropped = dropped_output(&report)?;
        // 200 MiB printed, less the few KiB the cap keeps.
        if dropped < 199 << 20 {
            bail!(
                "grader grade dropped only {dropped} bytes of hostile-print-flood.c's output: it should have printed 200 MiB and kept a few KiB"
            );
        }
        Ok(Rss {
            own_mb: own_kb as f64 / 1024.0,
            with_children_mb: usage.ru_maxrss as f64 / 1024.0,
            seconds,
            dropped_mb: dropped as f64 / f64::from(1 << 20),
        })
    }

    /// The bytes of output dropped over all tests of a `--json` report,
    /// from the `[... N bytes dropped ...]` notes in each test's `output`.
    fn dropped_output(report: &Path) -> anyhow::Result<u64> {
        let text = std::fs::read_to_string(report)
            .with_context(|| format!("cannot read {}", report.display()))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", report.display()))?;
        let mut dropped = 0;
        let submissions = json["submissions"].as_array().into_iter().flatten();
        for test in submissions.flat_map(|s| s["tests"].as_array().into_iter().flatten()) {
            let output = test["output"].as_str().unwrap_or_default();
            for note in output.split("[... ").skip(1) {
                let count = note
                    .split_once(" bytes dropped")
                    .map(|(n, _)| n.parse::<u64>());
                if let Some(Ok(n)) = count {
                    dropped += n;
                }
            }
        }
        Ok(dropped)
    }

    /// The text of the first `[[case]]` table of a case file.
    fn first_case(text: &str) -> anyhow::Result<String> {
        let mut parts = text.split("[[case]]");
        parts.next();
        let case = parts.next().context("cases/campus.toml has no [[case]]")?;
        // Without the comments that introduce the next case.
        let mut lines: Vec<&str> = case.lines().collect();
        while lines
            .last()
            .is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            lines.pop();
        }
        Ok(format!("[[case]]{}\n", lines.join("\n")))
    }

    /// `VmHWM` (peak RSS) in KiB from a `/proc/<pid>/status`, while the
    /// process lives.
    fn vm_hwm_kb(path: &str) -> Option<u64> {
        let status = std::fs::read_to_string(path).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn load_average() -> String {
        std::fs::read_to_string("/proc/loadavg")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|err| format!("unknown ({err})"))
    }

    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    /// The median (mean of the middle two for an even count); 0 when empty.
    fn median(values: &mut [f64]) -> f64 {
        if values.is_empty() {
            return 0.0;
        }
        values.sort_by(f64::total_cmp);
        let mid = values.len() / 2;
        if values.len() % 2 == 1 {
            values[mid]
        } else {
            (values[mid - 1] + values[mid]) / 2.0
        }
    }

    fn list(values: &[f64]) -> String {
        values
            .iter()
            .map(|v| format!("{v:.1}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
