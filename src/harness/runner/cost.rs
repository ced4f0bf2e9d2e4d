//! Cost vectors (spec `cost.*`, `runner.cost`): an op's time measured at
//! growing input sizes through the protocol, and its growth exponent
//! estimated from the times, so that a port whose parser or retention is
//! quadratic fails in CI instead of on a user's long message.
//!
//! A cost vector's input is a *generator*: a JSON template in which
//! `{"$text": [PART…]}` is a string (each part a string, or `{"$repeat":
//! STRING, "$count": K}`: the string repeated `K·n` times) and an array item
//! `{"$each": ITEM, "$count": K}` stands for `K·n` copies of `ITEM`, in which
//! every `$i` of a string is the copy's index. Sizes double from the
//! vector's `start` up to its `max`.

use super::adapter::{Description, Implementation};
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use std::time::{Duration, Instant};

/// A cost vector, as its file writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct CostVector {
    /// Stable, unique: `cost.area.what`.
    pub id: String,
    /// The spec rules it tests (`cost.*`).
    pub rules: Vec<String>,
    /// What it measures.
    pub description: String,
    /// The op.
    pub op: String,
    /// It runs on an implementation that declares one of these.
    pub features: Vec<String>,
    /// The input template.
    pub generator: Json,
    /// The first size.
    pub start: u64,
    /// The largest size tried.
    pub max: u64,
}

/// A size stops the growth once its fastest answer takes longer than this
/// (and three sizes took at least [`FLOOR`]): the next size of a quadratic
/// op would take four times as long.
pub const SLOW: Duration = Duration::from_millis(500);
/// Times below this are too short to judge (scheduling noise, process
/// wake-up) and are not used in the estimate.
pub const FLOOR: Duration = Duration::from_millis(10);
/// A vector fails when the estimated exponent exceeds this. Linear ops
/// measure near 1 and `n log n` below 1.25 over these sizes; quadratic ones
/// near 2.
pub const LIMIT: f64 = 1.5;
/// Samples per size (the fastest counts), fewer when a size is slow.
pub const SAMPLES: usize = 5;
/// The estimate uses at most this many of the largest sizes.
pub const POINTS_USED: usize = 5;

/// One measured size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// The generator's `n`.
    pub size: u64,
    /// The fastest answer at that size, in seconds.
    pub seconds: f64,
}

impl Point {
    /// Whether it took long enough to judge (at least [`FLOOR`]).
    pub fn judged(&self) -> bool {
        self.seconds >= FLOOR.as_secs_f64()
    }
}

/// A cost vector's measurements and what they say.
#[derive(Clone, Debug, PartialEq)]
pub struct Growth {
    /// Every size tried, smallest first.
    pub points: Vec<Point>,
    /// The estimated exponent, `None` when fewer than three sizes took at
    /// least [`FLOOR`] (the op was fast at nearly every size tried).
    pub exponent: Option<f64>,
}

impl Growth {
    /// Whether the growth is clearly super-linear.
    pub fn exceeds(&self) -> bool {
        self.exponent.is_some_and(|k| k > LIMIT)
    }

    /// `n=1000: 2.1 ms, n=2000: 8.3 ms, …; exponent 1.98 (limit 1.5)`.
    pub fn describe(&self) -> String {
        let points: Vec<String> = self
            .points
            .iter()
            .map(|point| format!("n={}: {}", point.size, milliseconds(point.seconds)))
            .collect();
        let estimate = match self.exponent {
            Some(k) => format!("exponent {k:.2} (limit {LIMIT})"),
            None => format!(
                "no exponent: fewer than three sizes took {} ms or more",
                FLOOR.as_millis()
            ),
        };
        format!("{}; {estimate}", points.join(", "))
    }
}

fn milliseconds(seconds: f64) -> String {
    if seconds >= 0.1 {
        format!("{:.0} ms", seconds * 1000.0)
    } else {
        format!("{:.1} ms", seconds * 1000.0)
    }
}

impl CostVector {
    /// Reads a cost vector entry; the error says what is wrong.
    pub fn from_json(entry: &Json) -> Result<CostVector, String> {
        let text = |name: &str| {
            entry
                .get(name)
                .and_then(Json::as_string)
                .ok_or_else(|| format!("\"{name}\" must be a string"))
        };
        let list = |name: &str| -> Result<Vec<String>, String> {
            entry
                .get(name)
                .and_then(Json::as_array)
                .filter(|items| !items.is_empty())
                .ok_or_else(|| format!("\"{name}\" must be a non-empty array"))?
                .iter()
                .map(|item| {
                    item.as_string()
                        .ok_or_else(|| format!("\"{name}\" holds a non-string"))
                })
                .collect()
        };
        let size = |name: &str| match entry.get(name) {
            Some(Json::Number(n)) if *n >= 1.0 && n.fract() == 0.0 && *n <= 1e9 => Ok(*n as u64),
            _ => Err(format!("\"{name}\" must be an integer from 1 to 10^9")),
        };
        let id = text("id")?;
        if !id.starts_with("cost.") {
            return Err(format!("cost vector id {id:?} must start with \"cost.\""));
        }
        let vector = CostVector {
            id,
            rules: list("rules")?,
            description: text("description")?,
            op: text("op")?,
            features: list("features")?,
            generator: entry
                .get("generator")
                .filter(|generator| generator.as_object().is_some())
                .cloned()
                .ok_or("\"generator\" must be an object (the input template)")?,
            start: size("start")?,
            max: size("max")?,
        };
        if vector.max < vector.start {
            return Err("\"max\" is below \"start\"".to_owned());
        }
        expand(&vector.generator, 1)?;
        Ok(vector)
    }

    /// The input at size `n`.
    pub fn input(&self, n: u64) -> Json {
        // Checked when the vector was read.
        expand(&self.generator, n).unwrap_or(Json::Null)
    }

    /// Whether an implementation declaring `description`'s features runs it.
    pub fn declared_by(&self, description: &Description) -> bool {
        description.declared().satisfies(&self.op, &self.features)
    }
}

/// The template `template` at size `n`.
pub fn expand(template: &Json, n: u64) -> Result<Json, String> {
    expand_with(template, n, None)
}

fn count(node: &Json, n: u64) -> Result<usize, String> {
    match node.get("$count") {
        Some(Json::Number(k)) if *k >= 0.0 && k.fract() == 0.0 && *k <= 64.0 => {
            Ok((*k as u64).saturating_mul(n) as usize)
        }
        _ => Err("\"$count\" must be an integer from 0 to 64".to_owned()),
    }
}

fn expand_with(template: &Json, n: u64, index: Option<usize>) -> Result<Json, String> {
    Ok(match template {
        Json::String(text) => Json::String(match index {
            Some(i) => replace_index(text, i),
            None => text.clone(),
        }),
        Json::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                if let Some(each) = item.get("$each") {
                    for copy in 0..count(item, n)? {
                        out.push(expand_with(each, n, Some(copy))?);
                    }
                } else {
                    out.push(expand_with(item, n, index)?);
                }
            }
            Json::Array(out)
        }
        Json::Object(members) => {
            if let Some(parts) = template.get("$text") {
                let mut text = String::new();
                for part in parts.as_array().ok_or("\"$text\" must be an array")? {
                    match part {
                        Json::String(piece) => text.push_str(&piece.to_string_lossy()),
                        _ => {
                            let piece = part.get("$repeat").and_then(Json::as_string).ok_or(
                                "a \"$text\" part is a string or {\"$repeat\", \"$count\"}",
                            )?;
                            text.push_str(&piece.repeat(count(part, n)?));
                        }
                    }
                }
                let text = match index {
                    Some(i) => text.replace("$i", &i.to_string()),
                    None => text,
                };
                return Ok(Json::str(&text));
            }
            let mut out = Vec::with_capacity(members.len());
            for (key, value) in members {
                out.push((key.clone(), expand_with(value, n, index)?));
            }
            Json::Object(out)
        }
        other => other.clone(),
    })
}

fn replace_index(text: &JsString, index: usize) -> JsString {
    match text.to_str() {
        Some(plain) if plain.contains("$i") => {
            JsString::from(plain.replace("$i", &index.to_string()).as_str())
        }
        _ => text.clone(),
    }
}

/// What measuring a cost vector came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Measured {
    /// Timed at every size the bounds allowed.
    Growth(Growth),
    /// The implementation answered `UNSUPPORTED`.
    Unsupported,
    /// A protocol failure (a crash, a hang): no time to judge.
    Broken(String),
}

/// Times `vector` on `implementation`: sizes double from `start` until one
/// takes longer than [`SLOW`] (and three took at least [`FLOOR`]), one takes
/// longer than four times [`SLOW`] (with fewer than three over [`FLOOR`],
/// sizes in between are timed), or the next would pass `max`; each
/// size is asked up to [`SAMPLES`] times (once when it takes half of
/// [`SLOW`]) and its fastest answer counts. An exponent over [`LIMIT`] is
/// confirmed before it stands: the sizes it was estimated from are asked
/// again, each keeping its fastest answer, and the exponent estimated anew
/// (a slowdown of the machine passes; a quadratic op stays quadratic).
pub fn measure(implementation: &mut dyn Implementation, vector: &CostVector) -> Measured {
    let mut points: Vec<Point> = Vec::new();
    let mut n = vector.start;
    loop {
        let took = match time_size(implementation, vector, n) {
            Ok(took) => took,
            Err(measured) => return measured,
        };
        points.push(Point {
            size: n,
            seconds: took.as_secs_f64(),
        });
        // A slow size ends the growth once three sizes are long enough to
        // judge (an op whose time jumps at one size, as a budget starts to
        // drop messages, gets more); a very slow one ends it anyway.
        let judged = judged_count(&points);
        if (took > SLOW && judged >= 3) || took > 4 * SLOW || n.saturating_mul(2) > vector.max {
            break;
        }
        n *= 2;
    }
    let too_steep = points
        .last()
        .is_some_and(|last| last.seconds > (4 * SLOW).as_secs_f64());
    if too_steep && judged_count(&points) < 3 {
        if let Err(measured) = refine(implementation, vector, &mut points) {
            return measured;
        }
    }
    if exponent(&points).is_some_and(|k| k > LIMIT) {
        let judged: Vec<usize> = (0..points.len())
            .filter(|&index| points[index].judged())
            .collect();
        for index in judged[judged.len().saturating_sub(POINTS_USED)..]
            .iter()
            .copied()
        {
            match time_size(implementation, vector, points[index].size) {
                Ok(took) => points[index].seconds = points[index].seconds.min(took.as_secs_f64()),
                Err(measured) => return measured,
            }
        }
    }
    let exponent = exponent(&points);
    Measured::Growth(Growth { points, exponent })
}

/// How many of `points` took at least [`FLOOR`].
fn judged_count(points: &[Point]) -> usize {
    points.iter().filter(|point| point.judged()).count()
}

/// At most this many sizes are added between doublings.
const REFINEMENTS: usize = 8;

/// Adds sizes between the doublings of a growth too steep to give three
/// sizes over [`FLOOR`] (6 ms, then 659 ms, then 3.3 s): the widest gap
/// below a judged size is split at its geometric middle, and again, until
/// three sizes are judged, the gaps are single steps of `n`, or
/// [`REFINEMENTS`] sizes were added. A quadratic op shows its exponent at the
/// finer steps; an op whose time jumps once at a threshold and then grows
/// linearly shows its linear tail.
fn refine(
    implementation: &mut dyn Implementation,
    vector: &CostVector,
    points: &mut Vec<Point>,
) -> Result<(), Measured> {
    for _ in 0..REFINEMENTS {
        if judged_count(points) >= 3 {
            break;
        }
        let widest = points
            .windows(2)
            .enumerate()
            .filter(|(_, pair)| pair[1].judged() && pair[1].size > pair[0].size + 1)
            .max_by(|(_, a), (_, b)| {
                let ratio = |pair: &[Point]| pair[1].size as f64 / pair[0].size as f64;
                ratio(a).total_cmp(&ratio(b))
            })
            .map(|(index, _)| index);
        let Some(index) = widest else { break };
        let (low, high) = (points[index].size, points[index + 1].size);
        let middle = ((low as f64 * high as f64).sqrt().round() as u64).clamp(low + 1, high - 1);
        let took = time_size(implementation, vector, middle)?;
        points.insert(
            index + 1,
            Point {
                size: middle,
                seconds: took.as_secs_f64(),
            },
        );
    }
    Ok(())
}

/// The fastest of up to [`SAMPLES`] answers at size `n` (one when it takes
/// half of [`SLOW`]), or what ended the measurement.
fn time_size(
    implementation: &mut dyn Implementation,
    vector: &CostVector,
    n: u64,
) -> Result<Duration, Measured> {
    let input = vector.input(n);
    let mut fastest: Option<Duration> = None;
    for _ in 0..SAMPLES {
        let started = Instant::now();
        let answer = implementation.call(&vector.op, &input);
        let took = started.elapsed();
        match answer {
            Ok(Outcome::Error { code, .. }) if code == UNSUPPORTED => {
                return Err(Measured::Unsupported)
            }
            Ok(_) => {}
            Err(problem) => return Err(Measured::Broken(problem)),
        }
        fastest = Some(fastest.map_or(took, |best| best.min(took)));
        if took >= SLOW / 2 {
            break;
        }
    }
    Ok(fastest.unwrap_or_default())
}

/// The Theil–Sen estimate of the exponent: the median of the slopes
/// `ln(t₂/t₁) / ln(n₂/n₁)` between every two of the (at most
/// [`POINTS_USED`]) largest sizes that took at least [`FLOOR`]; `None` with
/// fewer than three such sizes. A median over every pair, not a fit: a size
/// slowed by the machine (another job, a collection) moves a few slopes,
/// not the estimate, and pairs far apart weigh a size's noise down, while
/// a quadratic op makes every slope near 2.
pub fn exponent(points: &[Point]) -> Option<f64> {
    let judged: Vec<&Point> = points.iter().filter(|point| point.judged()).collect();
    let judged = &judged[judged.len().saturating_sub(POINTS_USED)..];
    if judged.len() < 3 {
        return None;
    }
    let mut slopes = Vec::new();
    for (index, first) in judged.iter().enumerate() {
        for second in &judged[index + 1..] {
            slopes.push(
                (second.seconds / first.seconds).ln()
                    / (second.size as f64 / first.size as f64).ln(),
            );
        }
    }
    slopes.sort_by(f64::total_cmp);
    let middle = slopes.len() / 2;
    Some(if slopes.len() % 2 == 1 {
        slopes[middle]
    } else {
        (slopes[middle - 1] + slopes[middle]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::parse;

    #[test]
    fn templates_expand_strings_and_arrays() {
        let template = parse(
            r#"{"text":{"$text":["a",{"$repeat":"@[","$count":2},"z"]},"list":[0,{"$each":{"id":"s$i"},"$count":1},9]}"#,
        )
        .unwrap();
        assert_eq!(
            expand(&template, 3).unwrap(),
            parse(r#"{"text":"a@[@[@[@[@[@[z","list":[0,{"id":"s0"},{"id":"s1"},{"id":"s2"},9]}"#)
                .unwrap()
        );
        assert!(expand(&parse(r#"{"t":{"$text":[{"$repeat":"x"}]}}"#).unwrap(), 1).is_err());
    }

    /// An implementation whose answer to a text of `n` characters takes
    /// `delay(n)`.
    struct Sleeper(fn(u64) -> Duration);

    impl Implementation for Sleeper {
        fn describe(&mut self) -> Result<Description, String> {
            Err("not described".to_owned())
        }

        fn call(&mut self, _op: &str, input: &Json) -> Result<Outcome, String> {
            let n = input
                .get("text")
                .and_then(Json::as_string)
                .map_or(0, |text| text.len());
            std::thread::sleep((self.0)(n as u64));
            Ok(Outcome::Output(Json::Null))
        }
    }

    fn steep_vector() -> CostVector {
        CostVector {
            id: "cost.test.steep".to_owned(),
            rules: vec!["cost.test".to_owned()],
            description: "steep".to_owned(),
            op: "test".to_owned(),
            features: vec!["test".to_owned()],
            generator: parse(r#"{"text":{"$text":[{"$repeat":"x","$count":1}]}}"#).unwrap(),
            start: 16,
            max: 1024,
        }
    }

    #[test]
    fn a_growth_too_steep_for_doubling_is_timed_at_finer_steps() {
        // runner.cost: 1 ms at 16, then 2.2 s at 32 (n⁸ between them):
        // doubling leaves one judged size; the sizes in between give the
        // exponent instead of a pass for want of three.
        let steep = |n: u64| {
            Duration::from_secs_f64(2.2 * (n as f64 / 32.0).powi(8)).max(Duration::from_millis(1))
        };
        let Measured::Growth(growth) = measure(&mut Sleeper(steep), &steep_vector()) else {
            panic!("a growth");
        };
        assert!(growth.points.len() > 2, "{}", growth.describe());
        assert!(growth
            .points
            .windows(2)
            .all(|pair| pair[0].size < pair[1].size));
        assert!(growth.exceeds(), "{}", growth.describe());
        // A time that jumps once at a threshold and grows linearly after it
        // passes at the finer steps.
        let jump = |n: u64| {
            if n <= 16 {
                Duration::from_millis(1)
            } else {
                Duration::from_secs_f64(2.2 * n as f64 / 32.0)
            }
        };
        let Measured::Growth(growth) = measure(&mut Sleeper(jump), &steep_vector()) else {
            panic!("a growth");
        };
        assert!(growth.points.len() > 2, "{}", growth.describe());
        assert!(!growth.exceeds(), "{}", growth.describe());
    }

    #[test]
    fn exponents_are_slopes_of_the_slow_sizes() {
        let points = |k: f64| -> Vec<Point> {
            (0..6)
                .map(|i| {
                    let size = 1000u64 << i;
                    Point {
                        size,
                        seconds: 1e-2 * (size as f64 / 1000.0).powf(k),
                    }
                })
                .collect()
        };
        let linear = exponent(&points(1.0)).unwrap();
        assert!((linear - 1.0).abs() < 1e-9, "{linear}");
        let quadratic = exponent(&points(2.0)).unwrap();
        assert!((quadratic - 2.0).abs() < 1e-9, "{quadratic}");
        // One size slowed by the machine moves one slope, not the median.
        let mut spiked = points(1.0);
        spiked[4].seconds *= 3.0;
        let estimate = exponent(&spiked).unwrap();
        assert!(estimate < 1.3, "{estimate}");
        // Fewer than three sizes over the floor: nothing to judge.
        assert_eq!(
            exponent(&[
                Point {
                    size: 1,
                    seconds: 0.001
                },
                Point {
                    size: 2,
                    seconds: 0.02
                },
                Point {
                    size: 4,
                    seconds: 0.04
                }
            ]),
            None
        );
    }
}
