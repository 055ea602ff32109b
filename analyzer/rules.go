package analyzer

import (
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// bound is a catalog rule bound to the function a call reaches, with the
// positions of the arguments it names resolved (-1: none).
type bound struct {
	*knowledge.Rule
	arg, key int
}

// rulesOf returns the catalog's rules of fn, bound to it.
func rulesOf(cat *knowledge.Catalog, fn *types.Func) []bound {
	rs := cat.Lookup(fn)
	if len(rs) == 0 {
		return nil
	}
	out := make([]bound, len(rs))
	for i, r := range rs {
		out[i] = bound{Rule: r, arg: r.ArgIndex(fn), key: r.KeyIndex(fn)}
	}
	return out
}

func (a *pkgAnalysis) rulesOf(fn *types.Func) []bound { return rulesOf(a.cat, fn) }

// find returns fn's first rule of role r; ok is false when it has none.
func (a *pkgAnalysis) find(fn *types.Func, r knowledge.Role) (bound, bool) {
	for _, b := range a.rulesOf(fn) {
		if b.Role == r {
			return b, true
		}
	}
	return bound{}, false
}
