package scenarios

import (
	"fmt"
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// The session scenarios: session clients writing through the write tier and
// reading through the read tier, beside the usual faults of the run's settings.

// SessionName is the registry name of the random session scenario.
const SessionName = "session"

// sessionStream is the PCG stream constant of the session scenario's generator ("session").
const sessionStream = 0x73657373696f6e

// Session returns the random session scenario for a seed. Its shape is fixed, its sizes and
// percentages drawn from the seed:
//
//   - external topics orders (2 partitions on a quarter of the seeds, else 1), payments and audit,
//     all written by the write tier (and by the usual external producers: concurrent writers to
//     the same partitions), and inventory and prices, written only by the external producers (the
//     other services feeding the read models);
//   - enricher receives orders, payments and audit and sends events, whose records carry the
//     enricher's past;
//   - view0 and view0b project partition 0 of orders joined with payments, events, inventory and
//     prices (two replicas at whatever lags the schedule gives them), view1 partition 1 of orders
//     when it has two; events-view projects events joined with orders, payments, inventory and
//     prices;
//   - read models: orders (a collection over both partitions when there are two), orders-p0 (the
//     single partition 0, when orders has two) and events;
//   - 3–6 clients; 30–70% of writes transactional, 25–50% of those aborting; reads 8–32 times
//     likelier to pick a model whose projector holds records back (SessionSpec.HeldReadWeight)
//     and 8 or 16 times likelier to be made by a client with no read owed than by one polling
//     after "retry" (SessionSpec.BrowseReadWeight).
//
// audit reaches no projector directly, so a token naming it is covered only through causes the
// rows carry: the read tier must often refuse, never skip.
//
// The joins are what make a projection's engine frontier run ahead of its delivered past (SPEC
// §5.3): a record that names a position its projector has not delivered yet — an events record
// carrying what the enricher delivered before the projector did, a stamped record on inventory or
// prices naming a recent order — is held back, and while it is, the frontier names the held
// record's causes, among them the writes of clients waiting to read them.
func Session(seed uint64) *spec.Scenario {
	rng := rand.New(rand.NewPCG(seed, sessionStream))
	orderParts := 1
	if rng.IntN(4) == 0 {
		orderParts = 2
	}
	joined := []string{"orders", "payments", "events", "inventory", "prices"}
	scn := &spec.Scenario{
		Name: SessionName,
		Topics: []spec.TopicSpec{
			{Name: "orders", Partitions: orderParts, External: true},
			{Name: "payments", Partitions: 1, External: true},
			{Name: "audit", Partitions: 1, External: true},
			{Name: "events", Partitions: 1},
			{Name: "inventory", Partitions: 1, External: true},
			{Name: "prices", Partitions: 1, External: true},
		},
		Processes: []spec.ProcessSpec{
			{Name: "view0", Receives: joined},
			{Name: "view0b", Receives: joined},
			{Name: "enricher", Receives: []string{"orders", "payments", "audit"}, Sends: []string{"events"}},
			{Name: "events-view", Receives: joined},
		},
	}
	orders := spec.ReadModelSpec{Name: "orders", Partitions: [][]string{{"view0", "view0b"}}}
	models := []spec.ReadModelSpec{}
	if orderParts == 2 {
		scn.Processes = append(scn.Processes, spec.ProcessSpec{Name: "view1", Task: 1, Receives: []string{"orders", "payments"}})
		orders.Partitions = append(orders.Partitions, []string{"view1"})
		models = append(models, spec.ReadModelSpec{Name: "orders-p0", Partitions: [][]string{{"view0", "view0b"}}})
	}
	models = append(models, orders, spec.ReadModelSpec{Name: "events", Partitions: [][]string{{"events-view"}}})
	scn.Session = &spec.SessionSpec{
		Clients:        3 + rng.IntN(4),
		Writes:         []string{"orders", "payments", "audit"},
		Models:         models,
		TxnPct:         30 + rng.IntN(41),
		AbortPct:       25 + rng.IntN(26),
		HeldReadWeight: 8 << rng.IntN(3),
	}
	scn.Session.BrowseReadWeight = 8 << rng.IntN(2)
	return scn
}

// sessionPct is the share of the random scenario's seeds that get session clients (swarm).
const sessionPct = 30

// withSessions adds session clients to a random scenario on sessionPct of seeds (drawn from the
// session generator's own stream, so the topology's draws never shift): the write tier writes
// every external topic, and one or two processes that receive an external topic project a read
// model each.
func withSessions(scn *spec.Scenario, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, sessionStream+1))
	if rng.IntN(100) >= sessionPct {
		return
	}
	external := map[string]bool{}
	var writes []string
	for _, t := range scn.Topics {
		if t.External {
			external[t.Name] = true
			writes = append(writes, t.Name)
		}
	}
	var models []spec.ReadModelSpec
	for _, p := range scn.Processes {
		if len(models) < 2 && receivesAny(p, external) {
			models = append(models, spec.ReadModelSpec{Name: "model-" + p.Name, Partitions: [][]string{{p.Name}}})
		}
	}
	if len(writes) == 0 || len(models) == 0 {
		return
	}
	scn.Session = &spec.SessionSpec{Clients: 1 + rng.IntN(3), Writes: writes, Models: models,
		TxnPct: rng.IntN(60), AbortPct: 20 + rng.IntN(40)}
}

// receivesAny reports whether p receives a topic of the set.
func receivesAny(p spec.ProcessSpec, set map[string]bool) bool {
	for _, r := range p.Receives {
		if set[r] {
			return true
		}
	}
	return false
}

func init() {
	Register(Builder{
		Name:    SessionName,
		Summary: "sessions: 3-6 clients write orders/payments/audit and read replicated, partitioned and downstream read models joining their inputs, beside the usual faults",
		Build: func(seed uint64, opts Options) (*spec.Scenario, error) {
			if opts.Processes != 0 {
				return nil, fmt.Errorf("scenario %s has a fixed topology: --processes is not supported", SessionName)
			}
			return Session(seed), nil
		},
	})
}
