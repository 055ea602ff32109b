#!/usr/bin/env bash
# bench/run.sh - run the throughput benchmarks (BENCHMARKS.md) and write
# bench/results/{durable,fast}.txt and bench/results/report.md.
#
# The fast servers' variables (IDEM_TEST_POSTGRES, IDEM_TEST_MYSQL,
# IDEM_TEST_REDIS: .ci/run's servers) and the durable ones'
# (IDEM_BENCH_*_DURABLE: bash bench/servers.sh) must be set; a store whose
# variable is unset is skipped. ROUNDS (default 6) rounds each run every
# contender once (-count 1), so that the samples of the contenders
# interleave and a burst of load on the shared machine hits them alike;
# BENCHTIME (default 1s) is go test's -benchtime. Each round is preceded by
# a comment line with the load average.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-6}
BENCHTIME=${BENCHTIME:-1s}
mkdir -p results
go test -c -o results/bench.test .
: >results/durable.txt
: >results/fast.txt
for round in $(seq "$ROUNDS"); do
  for cfg in durable fast; do
    echo "# round $round, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" >>"results/$cfg.txt"
    echo "==> round $round/$ROUNDS: $cfg (-benchtime $BENCHTIME)" >&2
    timeout 1800 ./results/bench.test -test.run '^$' -test.bench "^BenchmarkThroughput/$cfg/" \
      -test.count 1 -test.benchtime "$BENCHTIME" -test.timeout 30m | tee -a "results/$cfg.txt"
  done
done
rm -f results/bench.test
go run ./cmd/benchreport results/durable.txt results/fast.txt | tee results/report.md
