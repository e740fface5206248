//! The scenario of a simulation: clients, arrivals, the server's capacity, fault windows,
//! latency and seed, parsed from the `simulate` flags.
//!
//! Every parse error is an [`InputError`] that says what to write instead, so a bad flag
//! ends the run with exit code 2 before anything is simulated.

use std::fmt;

use crate::error::InputError;
use crate::input::policy::Duration;

/// The most clients one run simulates.
pub const MAX_CLIENTS: u32 = 1_000_000;

/// The longest arrival window or fault end, in milliseconds: a day.
pub const MAX_SPAN_MS: i64 = 86_400_000;

/// How the clients' calls arrive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Uniformly at random over `[0, window]`.
    Uniform { window: Duration },
    /// A Poisson process at this many calls per second, from time zero.
    Poisson { per_second: f64 },
}

impl Arrival {
    /// Parses `uniform:60s` or `poisson:50/s`.
    pub fn parse(text: &str) -> Result<Arrival, InputError> {
        let bad = |why: String| {
            InputError::new(format!("bad --arrival `{text}`: {why}")).with_help(
                "write uniform:60s (calls spread over a window) or poisson:50/s (calls at a rate)",
            )
        };
        let (kind, value) = text
            .split_once(':')
            .ok_or_else(|| bad("it names no arrival process".into()))?;
        match kind.trim() {
            "uniform" => {
                let window = Duration::parse(value).map_err(bad)?;
                if window < Duration::ZERO {
                    return Err(bad("the window is negative".into()));
                }
                Ok(Arrival::Uniform { window })
            }
            "poisson" => Ok(Arrival::Poisson {
                per_second: parse_rate(value).map_err(bad)?,
            }),
            other => Err(bad(format!("unknown arrival process `{other}`"))),
        }
    }

    /// When the last call arrives, on average.
    pub fn span_us(self, clients: u32) -> i64 {
        match self {
            Arrival::Uniform { window } => window.as_micros(),
            Arrival::Poisson { per_second } => {
                (f64::from(clients) / per_second * 1e6).min(i64::MAX as f64 / 4.0) as i64
            }
        }
    }

    /// Calls per second while calls arrive: the load with no retry at all.
    pub fn steady_per_second(self, clients: u32) -> f64 {
        match self {
            Arrival::Uniform { window } => f64::from(clients) / window.as_secs_f64().max(1.0),
            Arrival::Poisson { per_second } => per_second,
        }
    }
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arrival::Uniform { window } => write!(f, "uniform:{}", time(*window)),
            Arrival::Poisson { per_second } => write!(f, "poisson:{}/s", number(*per_second)),
        }
    }
}

/// Parses `50/s`, `3000/m` or `2.5/s` into a rate per second.
fn parse_rate(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let (number, unit) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` has no unit: write {text}/s"))?;
    let per: f64 = match unit.trim() {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3_600.0,
        other => return Err(format!("unknown rate unit `/{other}`: use /s, /m or /h")),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{number}` is not a number"))?;
    let rate = value / per;
    if !rate.is_finite() || rate <= 0.0 {
        return Err(format!("`{text}` is not a positive rate"));
    }
    Ok(rate)
}

/// A time as the flags write it: whole seconds below an hour as `90s`, the rest as
/// durations are shown (`250ms`, `1.5s`, `2h`).
pub fn time(d: Duration) -> String {
    let micros = d.as_micros();
    if micros % 1_000_000 == 0 && (0..3_600_000_000).contains(&micros) {
        format!("{}s", micros / 1_000_000)
    } else {
        d.to_string()
    }
}

/// A number without a useless fraction: `50`, `2.5`.
pub fn number(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The `Retry-After` of a fault's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfterHeader {
    /// `Retry-After: N`.
    After(Duration),
    /// A value the client cannot read (`retry-after=invalid`).
    Invalid,
}

/// What goes wrong during a fault window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// The server answers this status (`503`, `429`, …), optionally with `Retry-After`.
    Status {
        code: u16,
        retry_after: Option<RetryAfterHeader>,
    },
    /// The connection is refused: the request is not processed.
    ConnectFailure,
    /// No answer, and nothing was processed: the client times out.
    TimeoutBeforeProcessing,
    /// The write happened, the response was lost: the client times out.
    TimeoutAfterProcessing,
}

/// One `--fault SIGNAL@FROM..TO`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub from: Duration,
    pub to: Duration,
}

impl Fault {
    /// Parses `503@10s..40s`, `429 retry-after=5s@0s..30s`, `429 retry-after=invalid@…`
    /// (a header the client cannot read), `connect-failure@5s..8s`,
    /// `timeout-before-processing@…` or `timeout-after-processing@…`.
    pub fn parse(text: &str) -> Result<Fault, InputError> {
        let bad = |why: String| {
            InputError::new(format!("bad --fault `{text}`: {why}")).with_help(
                "write SIGNAL@FROM..TO, as in 503@10s..40s, '429 retry-after=5s@0s..30s', \
                 '429 retry-after=invalid@0s..30s', \
                 connect-failure@5s..8s, timeout-before-processing@5s..20s or \
                 timeout-after-processing@5s..20s",
            )
        };
        let (signal, window) = text
            .rsplit_once('@')
            .ok_or_else(|| bad("it has no time window (`@FROM..TO`)".into()))?;
        let (from, to) = window
            .split_once("..")
            .ok_or_else(|| bad(format!("`{window}` is not a window FROM..TO")))?;
        let from = Duration::parse(from).map_err(&bad)?;
        let to = Duration::parse(to).map_err(&bad)?;
        if from < Duration::ZERO || to <= from {
            return Err(bad(format!(
                "the window must start at 0s or later and end after it starts ({from}..{to})"
            )));
        }
        let mut words = signal.split_whitespace();
        let name = words
            .next()
            .ok_or_else(|| bad("it names no signal".into()))?;
        let kind = match name {
            "connect-failure" => FaultKind::ConnectFailure,
            "timeout-before-processing" => FaultKind::TimeoutBeforeProcessing,
            "timeout-after-processing" => FaultKind::TimeoutAfterProcessing,
            code => {
                let code: u16 = code
                    .parse()
                    .ok()
                    .filter(|c| (400..600).contains(c))
                    .ok_or_else(|| {
                        let mut why = format!("unknown signal `{code}`");
                        if let Some(near) = crate::error::did_you_mean(
                            code,
                            [
                                "connect-failure",
                                "timeout-before-processing",
                                "timeout-after-processing",
                            ],
                        ) {
                            why.push_str(&format!(" (did you mean `{near}`?)"));
                        } else {
                            why.push_str(": use a status from 400 to 599, connect-failure, timeout-before-processing or timeout-after-processing");
                        }
                        bad(why)
                    })?;
                FaultKind::Status {
                    code,
                    retry_after: None,
                }
            }
        };
        let mut kind = kind;
        for option in words {
            let value = option.strip_prefix("retry-after=").ok_or_else(|| {
                bad(format!(
                    "unknown option `{option}`: only retry-after=DURATION exists"
                ))
            })?;
            let FaultKind::Status { code, .. } = kind else {
                return Err(bad(format!(
                    "`{name}` has no response to carry a Retry-After"
                )));
            };
            let header = if value == "invalid" {
                RetryAfterHeader::Invalid
            } else {
                let after = Duration::parse(value).map_err(|why| {
                    bad(format!(
                        "{why} (or retry-after=invalid for an unreadable header)"
                    ))
                })?;
                if after < Duration::ZERO {
                    return Err(bad("a negative Retry-After".into()));
                }
                RetryAfterHeader::After(after)
            };
            kind = FaultKind::Status {
                code,
                retry_after: Some(header),
            };
        }
        Ok(Fault { kind, from, to })
    }

    /// The signal as the flag writes it: `503`, `429 retry-after=5s`, `connect-failure`.
    pub fn signal(&self) -> String {
        match self.kind {
            FaultKind::Status {
                code,
                retry_after: None,
            } => code.to_string(),
            FaultKind::Status {
                code,
                retry_after: Some(RetryAfterHeader::After(after)),
            } => format!("{code} retry-after={}", time(after)),
            FaultKind::Status {
                code,
                retry_after: Some(RetryAfterHeader::Invalid),
            } => format!("{code} retry-after=invalid"),
            FaultKind::ConnectFailure => "connect-failure".into(),
            FaultKind::TimeoutBeforeProcessing => "timeout-before-processing".into(),
            FaultKind::TimeoutAfterProcessing => "timeout-after-processing".into(),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}@{}..{}",
            self.signal(),
            time(self.from),
            time(self.to)
        )
    }
}

/// The server's capacity, in requests per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Capacity {
    PerSecond(u64),
    Unlimited,
}

impl Capacity {
    /// Parses `200/s`, `12000/m` or `unlimited`.
    pub fn parse(text: &str) -> Result<Capacity, InputError> {
        if text.trim() == "unlimited" {
            return Ok(Capacity::Unlimited);
        }
        let bad = |why: String| {
            InputError::new(format!("bad --capacity `{text}`: {why}")).with_help(
                "write the requests per second the server answers, as in 200/s, or unlimited",
            )
        };
        let rate = parse_rate(text).map_err(bad)?;
        if !(1.0..=1e9).contains(&rate) {
            return Err(bad(
                "the capacity must be between 1/s and 1000000000/s".into()
            ));
        }
        Ok(Capacity::PerSecond(rate.round() as u64))
    }
}

impl fmt::Display for Capacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Capacity::PerSecond(n) => write!(f, "{n}/s"),
            Capacity::Unlimited => f.write_str("unlimited"),
        }
    }
}

/// Everything a simulation runs against, the same for every compared variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub clients: u32,
    pub arrival: Arrival,
    pub capacity: Capacity,
    /// In the order given; where windows overlap, the first one given applies.
    pub faults: Vec<Fault>,
    /// The round trip of an answered request.
    pub latency: Duration,
    pub seed: u64,
}

impl Default for Scenario {
    /// 1,000 clients over a minute (about 17 calls per second), a server that answers
    /// 200 requests per second, no fault, 50 ms of latency, seed 1.
    fn default() -> Scenario {
        Scenario {
            clients: 1_000,
            arrival: Arrival::Uniform {
                window: Duration::from_millis(60_000),
            },
            capacity: Capacity::PerSecond(200),
            faults: Vec::new(),
            latency: Duration::from_millis(50),
            seed: 1,
        }
    }
}

/// The scenario flags as text, before parsing.
#[derive(Debug, Clone, Default)]
pub struct ScenarioFlags<'a> {
    pub clients: u32,
    pub arrival: &'a str,
    pub capacity: &'a str,
    pub faults: &'a [String],
    pub latency: &'a str,
    pub seed: u64,
}

impl Scenario {
    /// Parses every flag, reporting every bad one at once.
    pub fn from_flags(flags: &ScenarioFlags<'_>) -> Result<Scenario, Vec<InputError>> {
        let mut errors = Vec::new();
        if flags.clients == 0 || flags.clients > MAX_CLIENTS {
            errors.push(InputError::new(format!(
                "bad --clients {}: simulate between 1 and {MAX_CLIENTS} clients",
                flags.clients
            )));
        }
        let arrival = Arrival::parse(flags.arrival)
            .map_err(|e| errors.push(e))
            .ok();
        let capacity = Capacity::parse(flags.capacity)
            .map_err(|e| errors.push(e))
            .ok();
        let faults: Vec<Fault> = flags
            .faults
            .iter()
            .filter_map(|f| Fault::parse(f).map_err(|e| errors.push(e)).ok())
            .collect();
        let latency = match Duration::parse(flags.latency) {
            Ok(d) if d >= Duration::ZERO => Some(d),
            Ok(_) => {
                errors.push(InputError::new(format!(
                    "bad --latency `{}`: a negative latency",
                    flags.latency
                )));
                None
            }
            Err(why) => {
                errors.push(InputError::new(format!(
                    "bad --latency `{}`: {why}",
                    flags.latency
                )));
                None
            }
        };
        let day = Duration::from_millis(MAX_SPAN_MS);
        if let Some(arrival) = arrival
            && flags.clients > 0
            && arrival.span_us(flags.clients) > day.as_micros()
        {
            errors.push(
                InputError::new(format!(
                    "bad --arrival `{}`: the calls would arrive over more than {day}",
                    flags.arrival
                ))
                .with_help("simulate at most a day: a shorter window, or a higher rate"),
            );
        }
        for fault in &faults {
            if fault.to > day {
                errors.push(InputError::new(format!(
                    "bad --fault `{fault}`: it ends after {day}; simulate at most a day"
                )));
            }
        }
        if latency.is_some_and(|l| l > day) {
            errors.push(InputError::new(format!(
                "bad --latency `{}`: longer than a day",
                flags.latency
            )));
        }
        match (arrival, capacity, latency) {
            (Some(arrival), Some(capacity), Some(latency)) if errors.is_empty() => Ok(Scenario {
                clients: flags.clients,
                arrival,
                capacity,
                faults,
                latency,
                seed: flags.seed,
            }),
            _ => Err(errors),
        }
    }

    /// When the last fault window ends (zero without faults).
    pub fn recovery(&self) -> Duration {
        self.faults
            .iter()
            .map(|f| f.to)
            .max()
            .unwrap_or(Duration::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_arrivals_capacities_and_faults() {
        assert_eq!(
            Arrival::parse("uniform:60s").unwrap(),
            Arrival::Uniform {
                window: Duration::from_millis(60_000)
            }
        );
        assert_eq!(
            Arrival::parse("poisson:50/s").unwrap(),
            Arrival::Poisson { per_second: 50.0 }
        );
        assert_eq!(
            Arrival::parse("poisson:600/m").unwrap(),
            Arrival::Poisson { per_second: 10.0 }
        );
        assert!(Arrival::parse("poisson:50").is_err());
        assert!(Arrival::parse("burst:5s").is_err());
        assert!(Arrival::parse("uniform:60").is_err());
        assert_eq!(Capacity::parse("200/s").unwrap(), Capacity::PerSecond(200));
        assert_eq!(Capacity::parse("unlimited").unwrap(), Capacity::Unlimited);
        assert!(Capacity::parse("0/s").is_err());
        let fault = Fault::parse("429 retry-after=5s@0s..30s").unwrap();
        assert_eq!(
            fault.kind,
            FaultKind::Status {
                code: 429,
                retry_after: Some(RetryAfterHeader::After(Duration::from_millis(5_000)))
            }
        );
        assert_eq!(fault.to_string(), "429 retry-after=5s@0s..30s");
        let invalid = Fault::parse("429 retry-after=invalid@0s..30s").unwrap();
        assert_eq!(invalid.to_string(), "429 retry-after=invalid@0s..30s");
        assert_eq!(
            Fault::parse("timeout-after-processing@5s..20s")
                .unwrap()
                .kind,
            FaultKind::TimeoutAfterProcessing
        );
        for bad in [
            "503",
            "503@10s",
            "503@40s..10s",
            "200@0s..1s",
            "timeout@0s..1s",
            "connect-failure retry-after=1s@0s..1s",
            "503 after=1s@0s..1s",
        ] {
            assert!(Fault::parse(bad).is_err(), "{bad}");
        }
        let typo = Fault::parse("conect-failure@0s..1s").unwrap_err();
        assert!(typo.message.contains("did you mean `connect-failure`"));
    }

    #[test]
    fn reports_every_bad_flag() {
        let faults = ["503@x..1s".to_string()];
        let errors = Scenario::from_flags(&ScenarioFlags {
            clients: 0,
            arrival: "uniform",
            capacity: "fast",
            faults: &faults,
            latency: "50",
            seed: 1,
        })
        .unwrap_err();
        assert_eq!(errors.len(), 5);
        let errors = Scenario::from_flags(&ScenarioFlags {
            clients: 1_000,
            arrival: "poisson:1/h",
            capacity: "200/s",
            faults: &["503@0s..48h".to_string()],
            latency: "50ms",
            seed: 1,
        })
        .unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
    }
}
