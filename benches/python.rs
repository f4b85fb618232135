//! `cargo bench --bench python`: what Python submissions cost (issue 8,
//! "Performance").
//!
//! 1. **Trace overhead**: the seed's listing (`submissions/py-listing.py`)
//!    solving the campus 4x4 and the bundled `backtrack-9x9`, through the
//!    grader's harness under the machine's `python3`, untraced and traced,
//!    interleaved, [`RUNS`] times each; prints the medians of the time the
//!    harness measured around `solve` and their ratio (target <= 3x).
//! 2. **Start-up**: the wall time of a whole harness process for one cheap
//!    test (`find_empty` on the campus board: interpreter start, harness
//!    import, compiling the student's file, the test), beside `python3 -I
//!    -S -B -c pass`; and the same test in a box of its own
//!    (`grader::runner::test_run::run_test`, as `grader grade` runs it).
//!
//! Unsandboxed runs start the interpreter directly (no Landlock, no
//! seccomp), so the ratio isolates the trace. The machine is shared: the
//! load average is printed at the start and the end.

fn main() -> std::process::ExitCode {
    match bench::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("python bench failed: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

mod bench {
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    use std::path::Path;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    use anyhow::{Context, bail};
    use grader::case::Case;
    use grader::check::{self, Judgement};
    use grader::protocol::{CodeKind, Limits, PythonInterpreter, WorkerMessage, WorkerRequest};
    use grader::runner::{outcome::outcome, test_run::run_test};
    use grader::sandbox::SandboxEnv;
    use grader::verdict::Function;
    use grader::worker::python::{HARNESS, find_interpreter, harness_input};

    /// Times each measurement is repeated.
    const RUNS: usize = 7;

    /// The cases of the trace measurement.
    const TRACE_CASES: [&str; 2] = ["campus-4x4", "backtrack-9x9"];

    fn source_dir() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    pub fn run() -> anyhow::Result<()> {
        let started = Instant::now();
        println!("load average at start: {}", load_average());
        let python = find_interpreter().map_err(anyhow::Error::msg)?;
        println!(
            "python: {} {} (reachable by every user: {})",
            python.executable.display(),
            python.version,
            python.world_reachable
        );
        let listing = source_dir().join("submissions/py-listing.py");
        let source = std::fs::read_to_string(&listing)
            .with_context(|| format!("cannot read {}", listing.display()))?;
        let cases = grader::case::load(&[source_dir().join("cases")])?;
        let case = |name: &str| -> anyhow::Result<&Case> {
            cases
                .cases
                .iter()
                .find(|c| c.name == name)
                .with_context(|| format!("no bundled case {name}"))
        };

        println!("\ntrace overhead: time in solve (ms, measured by the harness), median of {RUNS}");
        for name in TRACE_CASES {
            let case = case(name)?;
            let probe = check::plan(case, Function::Solve);
            let (mut plain, mut traced) = (Vec::new(), Vec::new());
            for run in 0..RUNS {
                // Alternate which goes first, so neither always runs warm.
                for trace in [run % 2 == 0, run % 2 != 0] {
                    let input = harness_input("py-listing.py", &source, &probe, trace)?;
                    let (time_ms, _) = run_harness(&python, &input, case, &probe)?;
                    if trace { &mut traced } else { &mut plain }.push(time_ms);
                }
            }
            let (p, t) = (median(&mut plain), median(&mut traced));
            println!(
                "  {name:<14} untraced {p:>9.2}  traced {t:>9.2}  ratio {:.2}x [target <= 3x]   (untraced {}; traced {})",
                t / p,
                list(&plain),
                list(&traced)
            );
        }

        println!(
            "\nstart-up of a Python test (find_empty on campus-4x4), wall ms, median of {RUNS}"
        );
        let campus = case("campus-4x4")?;
        let probe = check::plan(campus, Function::FindEmpty);
        let input = harness_input("py-listing.py", &source, &probe, true)?;
        let (mut bare, mut harness) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let start = Instant::now();
            let status = Command::new(&python.executable)
                .args(["-I", "-S", "-B", "-c", "pass"])
                .status()?;
            if !status.success() {
                bail!("python3 -c pass failed: {status}");
            }
            bare.push(start.elapsed().as_secs_f64() * 1000.0);
            let start = Instant::now();
            run_harness(&python, &input, campus, &probe)?;
            harness.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        println!(
            "  python3 -I -S -B -c pass          {:>7.1}  ({})",
            median(&mut bare),
            list(&bare)
        );
        println!(
            "  harness, unconfined               {:>7.1}  ({})",
            median(&mut harness),
            list(&harness)
        );

        let env = SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader-worker"));
        let code = tempfile::Builder::new()
            .prefix("grader-python-bench-")
            .tempdir()?;
        std::fs::set_permissions(
            code.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )?;
        let file = code.path().join("py-listing.py");
        std::fs::write(&file, &source)?;
        let request = WorkerRequest {
            kind: CodeKind::Python,
            code: file,
            probe: probe.clone(),
            limits: Limits {
                time_limit_ms: 1000,
                memory_limit_mb: cases.config.memory_limit_mb,
            },
            python: Some(python.clone()),
            trace: false,
            reference_legal: false,
            deep_stop: false,
        };
        let mut sandboxed = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            let run = run_test(&request, &env)?;
            let wall = start.elapsed().as_secs_f64() * 1000.0;
            match outcome(&run, &request.limits) {
                Ok((response, _)) => expect_pass(campus, &probe, &response)?,
                Err(outcome) => bail!("the sandboxed Python test failed: {outcome:?}\n{run:#?}"),
            }
            sandboxed.push(wall);
        }
        println!(
            "  through the sandboxed worker      {:>7.1}  ({})",
            median(&mut sandboxed),
            list(&sandboxed)
        );
        class_in_a_box(&python, &source, &cases)?;
        println!("\nload average at end: {}", load_average());
        println!("bench took {:.1} s", started.elapsed().as_secs_f64());
        Ok(())
    }

    /// The plain in-process baseline: one interpreter that runs the
    /// student's file once and asks it every question (the same calls the
    /// harness makes, untraced), timing each; prints the times as JSON.
    const IN_PROCESS: &str = include_str!("in_process.py");

    /// Every bundled case and function for the listing, in a box with the
    /// test zygote and in a box without it (each test a child that starts
    /// its own interpreter), interleaved, [`RUNS`] times; beside the same
    /// questions in one plain interpreter ([`IN_PROCESS`]).
    fn class_in_a_box(
        python: &PythonInterpreter,
        source: &str,
        cases: &grader::case::CaseSet,
    ) -> anyhow::Result<()> {
        use grader::runner::grade_plan::GradePlan;
        use grader::runner::session::Session;
        use grader::submission::build::BuildContext;
        use grader::submission::discover;
        use grader::verdict::Verdict;

        let listing = source_dir().join("submissions/py-listing.py");
        let mut per_test_env =
            SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader-worker"));
        per_test_env.test_zygote = false;
        let plan_with = |sandbox| -> anyhow::Result<GradePlan> {
            Ok(GradePlan {
                cases: grader::case::load(&[source_dir().join("cases")])?,
                build: BuildContext::new().context("cannot find the lab crate")?,
                sandbox,
                jobs: 1,
                limits: Default::default(),
            })
        };
        let plans = [
            plan_with(SandboxEnv::detect().with_worker(env!("CARGO_BIN_EXE_grader-worker")))?,
            plan_with(per_test_env)?,
        ];
        let submission = discover::classify(&listing);
        let mut sessions = Vec::new();
        for plan in &plans {
            let session = Session::open(&submission, plan)
                .map_err(|report| anyhow::anyhow!("py-listing.py: {}", report.message))?;
            sessions.push(session);
        }
        let tests: Vec<(&Case, Function)> = cases
            .cases
            .iter()
            .flat_map(|case| case.tests.iter().map(move |&f| (case, f)))
            .collect();
        let probes: Vec<check::Probe> = tests.iter().map(|(c, f)| check::plan(c, *f)).collect();
        let request = serde_json::json!({ "source": source, "probes": probes });
        // wall[way][test][run]: way 0 the zygote, 1 a child per test.
        let mut wall = vec![vec![Vec::new(); tests.len()]; 2];
        let mut in_process = vec![Vec::new(); tests.len()];
        let mut in_process_wall = Vec::new();
        for run in 0..RUNS {
            let start = Instant::now();
            let mut child = Command::new(&python.executable)
                .args(["-I", "-S", "-B", "-c", IN_PROCESS])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()?;
            child
                .stdin
                .take()
                .context("no stdin")?
                .write_all(&serde_json::to_vec(&request)?)?;
            let out = child.wait_with_output()?;
            in_process_wall.push(start.elapsed().as_secs_f64() * 1000.0);
            let times: Vec<f64> = serde_json::from_slice(&out.stdout)
                .with_context(|| format!("the in-process run said {out:?}"))?;
            for (t, time) in times.into_iter().enumerate() {
                in_process[t].push(time);
            }
            for (t, &(case, function)) in tests.iter().enumerate() {
                let order = if (run + t) % 2 == 0 { [0, 1] } else { [1, 0] };
                for way in order {
                    let start = Instant::now();
                    let judged = sessions[way].test(case, function, false);
                    wall[way][t].push(start.elapsed().as_secs_f64() * 1000.0);
                    if judged.report.verdict != Verdict::Pass {
                        bail!(
                            "{} {function} in a box: {} ({})",
                            case.name,
                            judged.report.verdict,
                            judged.report.message
                        );
                    }
                }
            }
        }
        let per_test = |samples: &[Vec<f64>]| {
            let mut medians: Vec<f64> = samples.iter().map(|r| median(&mut r.clone())).collect();
            median(&mut medians)
        };
        let overhead: Vec<Vec<f64>> = (0..tests.len())
            .map(|t| {
                (0..RUNS)
                    .map(|r| wall[0][t][r] - in_process[t][r])
                    .collect()
            })
            .collect();
        let total = |samples: &[Vec<f64>]| {
            let mut totals: Vec<f64> = (0..RUNS)
                .map(|r| samples.iter().map(|t| t[r]).sum())
                .collect();
            median(&mut totals)
        };
        let (zygote_total, child_total) = (total(&wall[0]), total(&wall[1]));
        let in_process_total = median(&mut in_process_wall);
        println!(
            "\nthe listing against every bundled case and function ({} tests), wall ms, medians of {RUNS} runs, interleaved",
            tests.len()
        );
        println!(
            "  per test: zygote {:.2}, a child per test {:.2}, the same question in one plain interpreter {:.3}; overhead beyond the student's compute (zygote - in-process) {:.2} [target <= 3 ms]",
            per_test(&wall[0]),
            per_test(&wall[1]),
            per_test(&in_process),
            per_test(&overhead)
        );
        println!(
            "  whole set: zygote {zygote_total:.0}, a child per test {child_total:.0}, one plain interpreter (start to end) {in_process_total:.0}; zygote / plain {:.2}x [target <= 1.15x], a child per test / plain {:.2}x",
            zygote_total / in_process_total,
            child_total / in_process_total
        );
        Ok(())
    }

    /// Runs the harness on `input` with a protocol pipe on fd 3; returns
    /// the `done` message's time and checks that the answer passes.
    fn run_harness(
        python: &PythonInterpreter,
        input: &[u8],
        case: &Case,
        probe: &check::Probe,
    ) -> anyhow::Result<(f64, usize)> {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            bail!("pipe2: {}", std::io::Error::last_os_error());
        }
        // SAFETY: both were just created and are owned by nothing else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let write_fd = write.as_raw_fd();
        let mut command = Command::new(&python.executable);
        command
            .args(["-I", "-S", "-B", "-c", HARNESS])
            .stdin(Stdio::piped())
            .stdout(Stdio::null());
        // SAFETY: dup2 is async-signal-safe; it only moves the pipe's
        // write end to fd 3 in the child (clearing close-on-exec there).
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(write_fd, 3) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn()?;
        drop(write);
        let mut stdin = child.stdin.take().context("no stdin")?;
        stdin.write_all(input)?;
        drop(stdin);
        let mut protocol = Vec::new();
        std::fs::File::from(read).read_to_end(&mut protocol)?;
        let status = child.wait()?;
        let (messages, garbage) = grader::protocol::decode_messages(&protocol);
        if let Some(garbage) = garbage {
            bail!("the harness wrote a line that is not a message: {garbage}");
        }
        let trace_len = messages
            .iter()
            .find_map(|m| match m {
                WorkerMessage::Trace { trace } => Some(trace.records.len() / 12),
                _ => None,
            })
            .unwrap_or(0);
        let Some((response, time_ms)) = messages.into_iter().find_map(|m| match m {
            WorkerMessage::Done { response, time_ms } => Some((response, time_ms)),
            _ => None,
        }) else {
            bail!("the harness ended with {status} without an answer");
        };
        expect_pass(case, probe, &response)?;
        Ok((time_ms, trace_len))
    }

    fn expect_pass(
        case: &Case,
        probe: &check::Probe,
        response: &check::Response,
    ) -> anyhow::Result<()> {
        match check::judge(case, grader::case::FindEmptyPolicy::Any, probe, response) {
            Judgement::Pass => Ok(()),
            Judgement::Wrong(failure) => bail!("{} failed: {failure}", case.name),
            Judgement::BadProbe(error) => {
                bail!("{}: the grader's probe is malformed ({error})", case.name)
            }
        }
    }

    fn load_average() -> String {
        std::fs::read_to_string("/proc/loadavg")
            .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "unknown".to_string())
    }

    fn median(values: &mut [f64]) -> f64 {
        values.sort_by(f64::total_cmp);
        let n = values.len();
        if n == 0 {
            return f64::NAN;
        }
        if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        }
    }

    fn list(values: &[f64]) -> String {
        values
            .iter()
            .map(|v| format!("{v:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
