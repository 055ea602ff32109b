package guardtest

import (
	"fmt"
	"strings"
	"testing"
)

// fakeTB records Fatalf and Skipf instead of stopping the test.
type fakeTB struct {
	testing.TB
	fatal, skip string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }
func (f *fakeTB) Skipf(format string, a ...any)  { f.skip = fmt.Sprintf(format, a...) }

func TestEnv(t *testing.T) {
	const name = "IDEM_TEST_GUARDTEST_ENV"
	t.Setenv(name, "dsn://x")
	t.Setenv("CI", "true")
	if got := Env(t, name); got != "dsn://x" {
		t.Errorf("Env = %q, want the variable's value", got)
	}

	t.Setenv(name, "")
	f := &fakeTB{TB: t}
	Env(f, name)
	if f.fatal != name+" is not set: CI must test every backend" || f.skip != "" {
		t.Errorf("under CI=true: fatal %q, skip %q", f.fatal, f.skip)
	}

	t.Setenv("CI", "")
	f = &fakeTB{TB: t}
	Env(f, name)
	if f.fatal != "" || !strings.Contains(f.skip, name+" is not set") {
		t.Errorf("outside CI: fatal %q, skip %q", f.fatal, f.skip)
	}
}
