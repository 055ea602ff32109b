package knowledge_test

import (
	"testing"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// TestReadName checks which function names read as reads: a read verb
// followed by the end of the name or a capital, and no second verb joined
// with Or or And.
func TestReadName(t *testing.T) {
	cat := knowledge.Default()
	for _, c := range []struct {
		name string
		want bool
	}{
		{"GetBlock", true},
		{"Get", true},
		{"FetchRates", true},
		{"GetOrders", true},
		{"ListAndroidApps", true},
		{"Getaway", false},
		{"GetOrCreateUser", false},
		{"FetchAndLock", false},
		{"SendEmail", false},
		{"Transfer", false},
	} {
		if got := cat.ReadName(c.name); got != c.want {
			t.Errorf("ReadName(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
