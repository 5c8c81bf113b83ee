// Package benchmarks is parsley-sim's measurement harness: the exact virtual-time metrics of a
// fixed set of scenarios (hold and end-to-end latency quantiles, deliveries per virtual second,
// hold-back depth, counts), exact engine work counters and allocations per operation of the hot
// paths, the baseline file they are gated against (results/sim-metrics.json), the side-by-side
// comparison of the wall-clock benchmarks with a baseline commit (time ratios and instructions
// per op), and the report (results/README.md and its SVG plots). `simrun bench` and
// benchmarks/benchgate are its command lines.
package benchmarks
