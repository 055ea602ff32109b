// Package validate is a stub of github.com/gobuffalo/validate/v3@v3.3.3 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package validate

// Errors holds validation errors.
type Errors struct {
	Errors map[string][]string
}

// HasAny reports whether there are errors.
func (v *Errors) HasAny() bool { return false }
