#!/usr/bin/env bash
# bench/run.sh - run the throughput benchmarks (BENCHMARKS.md) and write
# bench/results/{durable,fast}.txt and bench/results/report.md.
#
# The fast servers' variables (IDEM_TEST_POSTGRES, IDEM_TEST_MYSQL,
# IDEM_TEST_REDIS: .ci/run's servers) and the durable ones'
# (IDEM_BENCH_*_DURABLE: bash bench/servers.sh) must be set; a store whose
# variable is unset is skipped. COUNT (default 6) and BENCHTIME (default
# 1s) are go test's -count and -benchtime.
set -euo pipefail
cd "$(dirname "$0")"
COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-1s}
mkdir -p results
go test -c -o results/bench.test .
for cfg in durable fast; do
  echo "==> $cfg (-count $COUNT -benchtime $BENCHTIME)" >&2
  timeout 5400 ./results/bench.test -test.run '^$' -test.bench "^BenchmarkThroughput/$cfg/" \
    -test.count "$COUNT" -test.benchtime "$BENCHTIME" -test.timeout 90m | tee "results/$cfg.txt"
done
rm -f results/bench.test
go run ./cmd/benchreport results/durable.txt results/fast.txt | tee results/report.md
