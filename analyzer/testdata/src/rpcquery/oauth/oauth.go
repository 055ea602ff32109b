// Package oauth gets access tokens from an OAuth token endpoint and logs
// in to a partner API: each is a POST that asks for a credential.
package oauth

import (
	"net/http"
	"net/url"
	"strings"
)

// Client holds the token endpoint and the partner API.
type Client struct{ tokenURL, api string }

// postToken asks the token endpoint for a token.
func (c *Client) postToken(form url.Values) (*http.Response, error) {
	return http.Post(c.tokenURL, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

// RefreshAccessToken exchanges a refresh token for an access token.
func (c *Client) RefreshAccessToken(refresh string) error {
	resp, err := c.postToken(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Login posts the service's credentials for a session.
func (c *Client) Login(user, password string) error {
	resp, err := http.PostForm(c.api+"/login", url.Values{"user": {user}, "password": {password}})
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// SendToken sends a one-time code to a phone: a message to a person.
func (c *Client) SendToken(phone string) error {
	resp, err := http.PostForm(c.api+"/otp", url.Values{"phone": {phone}})
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
