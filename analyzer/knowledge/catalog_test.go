package knowledge_test

import (
	"testing"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// TestReadName checks which function names read as reads: a read (or
// compute) verb followed by the end of the name or a capital, and no second verb joined
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
		{"Embed", true},
		{"TranslateText", true},
		{"ExtractAndSave", false},
		{"Embedded", false},
	} {
		if got := cat.ReadName(c.name); got != c.want {
			t.Errorf("ReadName(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDescribed checks which packages the catalog describes without
// analysing their code: catalogued clients, remote-service and
// model-inference SDKs; not a package that merely shares the start of a
// path segment with one.
func TestDescribed(t *testing.T) {
	cat := knowledge.Default()
	for _, c := range []struct {
		path string
		want bool
	}{
		{"google.golang.org/genai", true},
		{"github.com/openai/openai-go/v3", true},
		{"github.com/sashabaranov/go-openai", true},
		{"github.com/aws/aws-sdk-go-v2/service/sqs", true},
		{"github.com/segmentio/kafka-go", true},
		{"github.com/openai/openai-go-helpers", false},
		{"example.com/shop/inference", false},
	} {
		if got := cat.Described(c.path); got != c.want {
			t.Errorf("Described(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

// TestBookkeepingTable checks which tables record what happened by their
// name (audit trails, logs of events or status changes) and which are
// business state.
func TestBookkeepingTable(t *testing.T) {
	cat := knowledge.Default()
	for _, c := range []struct {
		table string
		want  bool
	}{
		{"audit_logs", true},
		{"audit", true},
		{"public.order_status_log", true},
		{"scraping_status", true},
		{"job_statuses", true},
		{"user_audit_trail", true},
		{`"Audit_Logs"`, true},
		{"payment_history", false},
		{"catalog", false},
		{"blogs", false},
		{"orders", false},
		{"status", false},
		{"logistics", false},
	} {
		if got := cat.BookkeepingTable(c.table); got != c.want {
			t.Errorf("BookkeepingTable(%q) = %v, want %v", c.table, got, c.want)
		}
	}
}

// TestCredentialName checks which function names read as obtaining a
// credential (a login, a token request) and which change one.
func TestCredentialName(t *testing.T) {
	cat := knowledge.Default()
	for _, c := range []struct {
		name string
		want bool
	}{
		{"Login", true},
		{"login", true},
		{"LogIn", true},
		{"SignIn", true},
		{"Authenticate", true},
		{"RefreshAccessToken", true},
		{"AccessTokenFor", true},
		{"postToken", true},
		{"getOAuthToken", true},
		{"SaveToken", false},
		{"SendTokenSMS", false},
		{"RevokeToken", false},
		{"Logout", false},
		{"LogEvent", false},
		{"SignUp", false},
		{"CreatePayment", false},
	} {
		if got := cat.CredentialName(c.name); got != c.want {
			t.Errorf("CredentialName(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
