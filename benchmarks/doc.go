// Package benchmarks is parsley-sim's measurement harness: the exact virtual-time metrics of a
// fixed set of scenarios (hold and end-to-end latency quantiles, deliveries per virtual second,
// hold-back depth, counts), exact engine work counters and allocations per operation of the hot
// paths, the baseline file they are gated against (results/sim-metrics.json), the statistical
// wall-clock gate against results/bench.txt, and the report (results/README.md and its SVG
// plots). `simrun bench` and benchmarks/benchgate are its command lines.
package benchmarks
