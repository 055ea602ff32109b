// Package quickstart holds the test of the README's "Quick start in your own
// module": TestQuickStart (build tag quickstart, run by .ci/run) follows it
// word for word in a fresh module, with this checkout served as
// github.com/idemkit/idem by a file module proxy, and fails when a command
// of the README fails or prints other than the README says.
//
//	go test -tags quickstart -count=1 ./e2e/quickstart/
//
// It needs the go command, bash and git, and the Go module proxy for the
// third-party modules that the machine's module cache lacks.
package quickstart
