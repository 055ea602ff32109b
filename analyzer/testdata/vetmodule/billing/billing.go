// Package billing is a dependency with an effect: its Charge POSTs.
package billing

import (
	"context"
	"net/http"
	"strings"
)

func Charge(ctx context.Context, account string, cents int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://pay.example/charges", strings.NewReader(account))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
