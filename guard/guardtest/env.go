package guardtest

import (
	"os"
	"testing"
)

// Env returns the environment variable name, which configures a test server
// (IDEM_TEST_POSTGRES, IDEM_TEST_MYSQL, IDEM_TEST_REDIS, …). When it is empty
// the test is skipped with a message saying which variable to set, except
// under CI=true, where a backend left untested is a failure: CI must test
// every backend.
func Env(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set: CI must test every backend", name)
		return ""
	}
	t.Skipf("%s is not set: skipping the tests that need this server (set it to its address or DSN, or run .ci/run, which starts every server)", name)
	return ""
}
