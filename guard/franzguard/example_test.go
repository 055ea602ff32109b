package franzguard_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	_ "modernc.org/sqlite" // guard.SQLite's driver

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/franzguard"
)

// ExampleConsume deducts stock once per order, through a guard store on
// SQLite, from records on kfake, an in-process Kafka broker. The second
// record resends the first order: the store answers Duplicate, the record
// is committed and the stock is not touched again.
func ExampleConsume() {
	dir, _ := os.MkdirTemp("", "franzguard")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(dir, "shop.db")))
	defer db.Close()
	store, err := guard.NewSQLStore(db, guard.SQLite)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		panic(err)
	}
	db.Exec(`CREATE TABLE stock (qty INTEGER NOT NULL); INSERT INTO stock VALUES (10)`)

	cluster, err := kfake.NewCluster(kfake.SeedTopics(1, "orders.created"))
	if err != nil {
		panic(err)
	}
	defer cluster.Close()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cluster.ListenAddrs()...),
		kgo.ConsumerGroup("deduct_inventory"),
		kgo.ConsumeTopics("orders.created"),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.DefaultProduceTopic("orders.created"),
	)
	if err != nil {
		panic(err)
	}
	defer cl.CloseAllowingRebalance()
	for _, order := range []string{"o1", "o1", "o2"} {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(order)}).FirstErr(); err != nil {
			panic(err)
		}
	}

	// What idemgen generates, by hand: the record is the order id.
	h := guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		out, err := store.Do(ctx, "deduct_inventory", string(body), nil, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - 1`)
			return err
		})
		fmt.Println(string(body), out, err)
		if string(body) == "o2" {
			cancel() // the last record ends the example; it is still committed
		}
		return out, err
	})
	err = franzguard.Consume(ctx, cl, h, franzguard.WithLogger(nil))
	fmt.Println("stopped:", err)

	var qty int
	db.QueryRow(`SELECT qty FROM stock`).Scan(&qty)
	fmt.Println("stock:", qty)
	fmt.Println("committed:", cluster.GroupInfo("deduct_inventory").Commits["orders.created"][0].Offset)
	// Output:
	// o1 applied <nil>
	// o1 duplicate <nil>
	// o2 applied <nil>
	// stopped: <nil>
	// stock: 8
	// committed: 3
}
