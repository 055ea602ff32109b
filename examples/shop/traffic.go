package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemkit/idem/examples/shop/orders"
	"github.com/idemkit/idem/examples/shop/shopdb"
	"github.com/idemkit/idem/examples/shop/smsprovider"
)

// The shop's catalogue and customers.
const (
	numSKUs      = 12
	numUsers     = 40
	numDays      = 3
	stockReserve = 5 // units of each SKU left when every order is served once
	smsTemplate  = "order_paid"
)

// The metrics of update_stats: one stats.recorded event per order and metric.
const (
	metricGMV   = "gmv"   // amount in cents; count = orders
	metricUnits = "units" // amount in units
)

// order is one order of the traffic.
type order struct {
	ID       string
	User     string
	Phone    string
	Sku      string
	Quantity int64
	Amount   int64 // cents
	Points   int64
	Day      string
}

// The events the producer publishes, as JSON. The consumers' generated
// message types read the fields they declare and ignore the others;
// sent_at differs between a resend and its original, and is in no
// fingerprint, so a resend is still a duplicate, not a conflict.
type (
	orderPaid struct {
		EventID  string    `json:"event_id"`
		OrderID  string    `json:"order_id"`
		UserID   string    `json:"user_id"`
		Sku      string    `json:"sku"`
		Quantity int64     `json:"quantity"`
		Amount   int64     `json:"amount"`
		Points   int64     `json:"points"`
		Day      string    `json:"day"`
		SentAt   time.Time `json:"sent_at"`
	}
	smsRequested struct {
		OrderID  string    `json:"order_id"`
		Phone    string    `json:"phone"`
		Template string    `json:"template"`
		SentAt   time.Time `json:"sent_at"`
	}
	statsRecorded struct {
		EventID string    `json:"event_id"`
		Day     string    `json:"day"`
		Metric  string    `json:"metric"`
		Amount  int64     `json:"amount"`
		SentAt  time.Time `json:"sent_at"`
	}
)

// publication is one publish of the producer: an event, or a resend of it.
type publication struct {
	topic  string // orders.paid, sms.requested, stats.recorded
	data   []byte
	resend bool
}

// traffic is everything the producer will do, and what it should lead to.
type traffic struct {
	orders   []order
	skus     []string
	users    []string
	stock    map[string]int64 // initial stock
	pubs     []publication
	events   int // distinct events
	resends  int // publications that repeat an event
	expected snapshot
}

// snapshot is the state of one set of consumers (or the state they should
// reach): its tables, the provider's counts, the Redis points.
type snapshot struct {
	db          *shopdb.State
	sms         smsprovider.Counts
	redisPoints map[string]int64 // nil without -redis
}

// newTraffic draws n orders and the publications that carry them from seed:
// each event is published once, or with probability dupRate two or three
// times (a producer resending after a timeout, without a dedup header),
// the resends landing a little later among the other publications.
func newTraffic(n int, dupRate float64, seed uint64) *traffic {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	t := &traffic{stock: map[string]int64{}}
	prices := map[string]int64{}
	for i := range numSKUs {
		sku := fmt.Sprintf("sku-%02d", i+1)
		t.skus = append(t.skus, sku)
		prices[sku] = 199 + rng.Int64N(4800)
	}
	phones := map[string]string{}
	for i := range numUsers {
		u := fmt.Sprintf("u-%03d", i+1)
		t.users = append(t.users, u)
		phones[u] = fmt.Sprintf("+1555010%04d", i+1)
	}
	first := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		sku := t.skus[rng.IntN(numSKUs)]
		user := t.users[rng.IntN(numUsers)]
		qty := 1 + rng.Int64N(3)
		amount := qty * prices[sku]
		t.orders = append(t.orders, order{
			ID:       fmt.Sprintf("o-%05d", i+1),
			User:     user,
			Phone:    phones[user],
			Sku:      sku,
			Quantity: qty,
			Amount:   amount,
			Points:   amount / 100,
			Day:      first.AddDate(0, 0, i*numDays/n).Format(time.DateOnly),
		})
	}

	// The events, in order; then each publication gets a position, a
	// resend after its original.
	type placed struct {
		pos float64
		pub publication
	}
	var all []placed
	sentAt := first
	add := func(topic string, event func(sentAt time.Time) any) {
		t.events++
		pos := float64(t.events)
		copies := 1
		if rng.Float64() < dupRate {
			copies = 2 + rng.IntN(2)
		}
		for c := range copies {
			sentAt = sentAt.Add(time.Millisecond)
			data, err := json.Marshal(event(sentAt))
			if err != nil {
				panic(err)
			}
			p := placed{pos: pos, pub: publication{topic: topic, data: data, resend: c > 0}}
			if c > 0 {
				t.resends++
				p.pos += 1 + rng.Float64()*40 // a timeout later
			}
			all = append(all, p)
		}
	}
	for _, o := range t.orders {
		eventID := "evt-" + o.ID
		add(orders.DeductInventoryTopic, func(at time.Time) any {
			return orderPaid{EventID: eventID, OrderID: o.ID, UserID: o.User, Sku: o.Sku, Quantity: o.Quantity,
				Amount: o.Amount, Points: o.Points, Day: o.Day, SentAt: at}
		})
		add(orders.SendSmsTopic, func(at time.Time) any {
			return smsRequested{OrderID: o.ID, Phone: o.Phone, Template: smsTemplate, SentAt: at}
		})
		add(orders.UpdateStatsTopic, func(at time.Time) any {
			return statsRecorded{EventID: eventID, Day: o.Day, Metric: metricGMV, Amount: o.Amount, SentAt: at}
		})
		add(orders.UpdateStatsTopic, func(at time.Time) any {
			return statsRecorded{EventID: eventID, Day: o.Day, Metric: metricUnits, Amount: o.Quantity, SentAt: at}
		})
	}
	slices.SortStableFunc(all, func(a, b placed) int {
		switch {
		case a.pos < b.pos:
			return -1
		case a.pos > b.pos:
			return 1
		}
		return 0
	})
	for _, p := range all {
		t.pubs = append(t.pubs, p.pub)
	}

	// The stock covers every order, plus a reserve, so no order is refused
	// and the expected state is exact.
	for _, sku := range t.skus {
		t.stock[sku] = stockReserve
	}
	for _, o := range t.orders {
		t.stock[o.Sku] += o.Quantity
	}
	t.expected = t.expect()
	return t
}

// expect returns the state that handling every order exactly once leads to.
func (t *traffic) expect() snapshot {
	s := snapshot{
		db:          &shopdb.State{Stock: map[string]int64{}, Points: map[string]int64{}, Stats: map[shopdb.StatKey]shopdb.Stat{}},
		sms:         smsprovider.Counts{Texts: map[smsprovider.Text]int{}},
		redisPoints: map[string]int64{},
	}
	for sku, qty := range t.stock {
		s.db.Stock[sku] = qty
	}
	for _, u := range t.users {
		s.db.Points[u] = 0
	}
	for _, o := range t.orders {
		s.db.Stock[o.Sku] -= o.Quantity
		s.db.Points[o.User] += o.Points
		s.redisPoints[o.User] += o.Points
		s.sms.Sent++
		s.sms.Texts[smsprovider.Text{To: o.Phone, Template: smsTemplate, Params: "order_id=" + o.ID}]++
		for metric, amount := range map[string]int64{metricGMV: o.Amount, metricUnits: o.Quantity} {
			k := shopdb.StatKey{Day: o.Day, Metric: metric}
			st := s.db.Stats[k]
			st.Count++
			st.Total += amount
			s.db.Stats[k] = st
		}
	}
	return s
}

// crash is the fate the fault injector draws for one delivery.
type crash int

const (
	noCrash crash = iota
	// crashBeforeAck: the worker dies after the handler returned, before
	// the ack reaches the server.
	crashBeforeAck
	// crashMidEffect: the worker dies in the middle of the effect, after
	// its statement ran (or the provider answered) and before it is
	// recorded. Without a transaction (naive) the effect stays; in a guarded
	// handler the transaction rolls back or the claim is released.
	crashMidEffect
)

// String names the crash for logs.
func (c crash) String() string {
	switch c {
	case crashBeforeAck:
		return "before the ack"
	case crashMidEffect:
		return "mid-effect"
	}
	return "none"
}

// crashes draws the fate of deliveries: the same for a consumer, a stream
// sequence and a delivery count, whichever path (naive or guarded) sees
// it, since both streams get the same publications in the same order.
type crashes struct {
	seed uint64
	rate float64
}

func (c crashes) draw(consumer string, seq, delivered uint64) crash {
	if c.rate <= 0 {
		return noCrash
	}
	h := fnv.New64a()
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], c.seed)
	binary.LittleEndian.PutUint64(b[8:], seq)
	binary.LittleEndian.PutUint64(b[16:], delivered)
	h.Write(b[:])
	h.Write([]byte(consumer))
	v := mix(h.Sum64())
	if float64(v>>11)/float64(1<<53) >= c.rate {
		return noCrash
	}
	if v&1 == 0 {
		return crashBeforeAck
	}
	return crashMidEffect
}

// mix is MurmurHash3's 64-bit finalizer: every input bit reaches every
// output bit, which FNV alone does not do for inputs this alike.
func mix(v uint64) uint64 {
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	v ^= v >> 33
	return v
}

// money formats cents as 12,345.67.
func money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return sign + group(cents/100) + fmt.Sprintf(".%02d", cents%100)
}

// group formats n with thousands separators.
func group(n int64) string {
	if n < 0 {
		return "-" + group(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
