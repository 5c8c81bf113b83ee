package substrate

// What the adapter needs to run against a real, shared cluster: TLS and SASL, the topic prefix
// that keeps a run's topics apart from everything else on the cluster, ownership of the topics it
// created (it never changes or deletes one it did not create), Cleanup, and waiting out Kafka's
// asynchronous topic deletion.
//
// Credentials never come from a command line (where they would land in shell history and in
// process listings): SASLFromEnv reads them from the environment.

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// ErrForeignTopic: the name is bound on the cluster to a topic this adapter did not create
// (another run's, or one made by hand). The adapter never writes to, deletes or adopts such a
// topic.
var ErrForeignTopic = errors.New("substrate: topic not created by this substrate")

// errCleanedUp refuses topic creation after Cleanup: the run is ending.
var errCleanedUp = errors.New("substrate: the adapter's topics were cleaned up; it creates no more")

// The environment variables SASLFromEnv reads.
const (
	EnvSASLUsername = "PARSLEY_KAFKA_SASL_USERNAME"
	EnvSASLPassword = "PARSLEY_KAFKA_SASL_PASSWORD"
)

// SASLMechanism names a SASL mechanism the adapter can authenticate with.
type SASLMechanism string

// The supported SASL mechanisms, spelled as Kafka's sasl.mechanism setting spells them.
const (
	SASLPlain       SASLMechanism = "PLAIN"
	SASLScramSHA256 SASLMechanism = "SCRAM-SHA-256"
	SASLScramSHA512 SASLMechanism = "SCRAM-SHA-512"
)

// SASL is the authentication of every connection to the cluster. The zero value authenticates
// nothing.
type SASL struct {
	Mechanism SASLMechanism
	Username  string
	Password  string
}

// SASLFromEnv returns the SASL settings for mechanism (one of the SASLMechanism constants,
// case-insensitive) with the username and password read from the environment variables
// PARSLEY_KAFKA_SASL_USERNAME and PARSLEY_KAFKA_SASL_PASSWORD. An empty mechanism means no SASL
// (the zero SASL). The error names the unknown mechanism or the variable that is not set.
func SASLFromEnv(mechanism string) (SASL, error) {
	return saslFrom(mechanism, os.LookupEnv)
}

func saslFrom(mechanism string, lookup func(string) (string, bool)) (SASL, error) {
	if mechanism == "" {
		return SASL{}, nil
	}
	m := SASLMechanism(strings.ToUpper(mechanism))
	if !slices.Contains([]SASLMechanism{SASLPlain, SASLScramSHA256, SASLScramSHA512}, m) {
		return SASL{}, fmt.Errorf("%w: SASL mechanism %q (need %s, %s or %s)", ErrInvalidArgument,
			mechanism, SASLPlain, SASLScramSHA256, SASLScramSHA512)
	}
	s := SASL{Mechanism: m}
	for _, v := range []struct {
		name string
		dst  *string
	}{{EnvSASLUsername, &s.Username}, {EnvSASLPassword, &s.Password}} {
		val, ok := lookup(v.name)
		if !ok || val == "" {
			return SASL{}, fmt.Errorf("%w: SASL %s needs the environment variable %s", ErrInvalidArgument, m, v.name)
		}
		*v.dst = val
	}
	return s, nil
}

// clientOpt returns the kgo option that authenticates with s, or nil for the zero SASL.
func (s SASL) clientOpt() (kgo.Opt, error) {
	switch s.Mechanism {
	case "":
		return nil, nil
	case SASLPlain:
		return kgo.SASL(plain.Auth{User: s.Username, Pass: s.Password}.AsMechanism()), nil
	case SASLScramSHA256:
		return kgo.SASL(scram.Auth{User: s.Username, Pass: s.Password}.AsSha256Mechanism()), nil
	case SASLScramSHA512:
		return kgo.SASL(scram.Auth{User: s.Username, Pass: s.Password}.AsSha512Mechanism()), nil
	}
	return nil, fmt.Errorf("%w: SASL mechanism %q", ErrInvalidArgument, s.Mechanism)
}

// TLSFromFiles builds a client TLS configuration: caFile (PEM) replaces the system roots when
// set; certFile and keyFile (PEM), set together, are the client certificate for brokers that
// require one. All empty is TLS with the system roots. The error names the file it could not use.
func TLSFromFiles(caFile, certFile, keyFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("substrate: TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: TLS CA file %q holds no PEM certificate", ErrInvalidArgument, caFile)
		}
		cfg.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("%w: TLS client certificate %q and key %q must be given together",
			ErrInvalidArgument, certFile, keyFile)
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("substrate: TLS client certificate %q, key %q: %w", certFile, keyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// DefaultTopicPrefix returns a topic prefix for a run of seed on a shared cluster:
// "parsley-SEED-XXXXXX-" with six random hex digits, so two runs of the same seed (or a run and
// the leftovers of an interrupted one) never share a topic. The random part is not part of the
// run: the adapter maps names back, so the run sees its scenario's names. Print it at the start
// of a run so its topics can be found on the cluster.
func DefaultTopicPrefix(seed uint64) string {
	var suffix [3]byte
	_, _ = rand.Read(suffix[:]) // never fails (crypto/rand panics rather than return an error)
	return fmt.Sprintf("parsley-%d-%s-", seed, hex.EncodeToString(suffix[:]))
}

// validatePrefix checks that prefix can start a legal topic name.
func validatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := ValidateTopicName(prefix); err != nil || len(prefix) >= MaxTopicNameLen {
		return fmt.Errorf("%w: topic prefix %q (need up to %d characters from [a-zA-Z0-9._-])",
			ErrInvalidArgument, prefix, MaxTopicNameLen-1)
	}
	return nil
}

// DefaultDeletionTimeout is how long the adapter waits, by default, for the cluster to finish
// deleting a topic (KafkaOptions.DeletionTimeout).
const DefaultDeletionTimeout = 60 * time.Second

// metadataPoll is the pause between two metadata requests while a creation or a deletion
// completes.
const metadataPoll = 100 * time.Millisecond

// clusterName is the name of name's topic on the cluster.
func (k *Kafka) clusterName(name string) string { return k.prefix + name }

// clusterGroup and clusterTxnID are the names of a consumer group and a transactional ID on the
// cluster: under the prefix too, so that runs sharing a cluster never fence each other's
// producers or read each other's offsets.
func (k *Kafka) clusterGroup(group string) string { return k.prefix + group }
func (k *Kafka) clusterTxnID(id string) string    { return k.prefix + id }

// scenarioName maps a cluster topic name back to the run's name; false if it is not under the
// prefix.
func (k *Kafka) scenarioName(cluster string) (string, bool) {
	name, ok := strings.CutPrefix(cluster, k.prefix)
	return name, ok && name != ""
}

// validateName checks a run's topic name, and that it is still legal under the prefix.
func (k *Kafka) validateName(name string) error {
	if err := ValidateTopicName(name); err != nil {
		return err
	}
	if n := len(k.prefix) + len(name); n > MaxTopicNameLen {
		return fmt.Errorf("%w: topic name %q under prefix %q is %d characters (Kafka allows %d)",
			ErrInvalidArgument, name, k.prefix, n, MaxTopicNameLen)
	}
	return nil
}

// TopicPrefix returns the prefix of every topic, group and transactional ID this adapter uses on
// the cluster.
func (k *Kafka) TopicPrefix() string { return k.prefix }

// ownedTopics is the set of live topics this adapter created and of consumer groups it committed
// offsets to, shared with Cleanup, which may run on another goroutine (a Ctrl-C handler) while
// the run's goroutine is inside a call.
type ownedTopics struct {
	mu        sync.Mutex
	live      map[TopicID]string // ID -> cluster name
	groups    map[string]bool    // cluster names of the groups offsets were committed to
	cleanedUp bool
}

// addGroup records that offsets are being committed to the cluster's group cluster (under the
// prefix): Cleanup deletes it.
func (k *Kafka) addGroup(cluster string) {
	k.owned.mu.Lock()
	defer k.owned.mu.Unlock()
	k.owned.groups[cluster] = true
}

// addOwned records a topic the cluster just created. After Cleanup it deletes the topic instead (the
// run's goroutine was creating it while Cleanup ran) and reports errCleanedUp.
func (k *Kafka) addOwned(id TopicID, cluster string) error {
	k.owned.mu.Lock()
	defer k.owned.mu.Unlock()
	if k.owned.cleanedUp {
		if err := k.deleteByID(id, cluster); err != nil {
			return err
		}
		return errCleanedUp
	}
	k.owned.live[id] = cluster
	return nil
}

func (k *Kafka) removeOwned(id TopicID) {
	k.owned.mu.Lock()
	delete(k.owned.live, id)
	k.owned.mu.Unlock()
}

func (k *Kafka) cleanedUp() bool {
	k.owned.mu.Lock()
	defer k.owned.mu.Unlock()
	return k.owned.cleanedUp
}

// Cleanup deletes every topic this adapter created that is still alive, by topic ID (so a topic
// someone else created under the same name since is never deleted), and every consumer group it
// committed offsets to (a group already gone is not an error), and makes later CreateTopic calls
// fail. Transactional IDs cannot be deleted in Kafka; they expire on the cluster's own schedule.
// Cleanup is idempotent and safe to call from another goroutine while a call is in progress (a
// Ctrl-C handler): it touches only the sets of created topics and groups, under their lock, and
// the client, which is safe for concurrent use. It does not wait for the deletions to complete.
// Call it before Close; the adapter is not usable for topics afterwards.
func (k *Kafka) Cleanup() error {
	k.owned.mu.Lock()
	defer k.owned.mu.Unlock()
	k.owned.cleanedUp = true
	var errs []error
	for _, id := range slices.SortedFunc(maps.Keys(k.owned.live), TopicID.Compare) {
		if err := k.deleteByID(id, k.owned.live[id]); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(k.owned.live, id)
	}
	for _, g := range slices.Sorted(maps.Keys(k.owned.groups)) {
		if err := k.deleteGroup(g); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(k.owned.groups, g)
	}
	return errors.Join(errs...)
}

// deleteGroup deletes the cluster's consumer group cluster. A group already gone is not an error.
func (k *Kafka) deleteGroup(cluster string) error {
	err := k.withRetry(func(ctx context.Context) error {
		_, err := k.adm.DeleteGroup(ctx, cluster)
		return err
	})
	if errors.Is(err, kerr.GroupIDNotFound) {
		return nil
	}
	return mapErr(err, fmt.Sprintf("delete consumer group %q", cluster))
}

// deleteByID deletes the topic with ID id (cluster name cluster, for errors). A topic already
// gone is not an error.
func (k *Kafka) deleteByID(id TopicID, cluster string) error {
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = int32(k.timeout / time.Millisecond)
	rt := kmsg.NewDeleteTopicsRequestTopic()
	rt.TopicID = id
	req.Topics = append(req.Topics, rt)
	err := k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return err
		}
		if len(resp.Topics) != 1 {
			return fmt.Errorf("substrate: malformed delete topics response for %q", cluster)
		}
		return kerr.ErrorForCode(resp.Topics[0].ErrorCode)
	})
	if errors.Is(err, kerr.UnknownTopicID) || errors.Is(err, kerr.UnknownTopicOrPartition) {
		return nil
	}
	return mapErr(err, fmt.Sprintf("delete topic %q (id %s)", cluster, id))
}

// awaitDeletion polls the cluster's metadata until name's incarnation id is gone from it (the
// name unbound, or bound to another ID): Kafka deletes topics asynchronously, and until the
// deletion completes the name still describes as id and cannot be created again. It gives up
// after the deletion timeout with an error naming the topic.
func (k *Kafka) awaitDeletion(name string, id TopicID) error {
	deadline := time.Now().Add(k.deletionTimeout)
	for {
		resp, err := k.metadata(k.clusterName(name))
		if err != nil {
			return mapErr(err, fmt.Sprintf("look up topic %q being deleted", name))
		}
		if len(resp.Topics) != 1 || kerr.ErrorForCode(resp.Topics[0].ErrorCode) != nil ||
			TopicID(resp.Topics[0].TopicID) != id {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("substrate: topic %q (%q on the cluster, id %s) still exists %v after its deletion "+
				"(the deletion timeout)", name, k.clusterName(name), id, k.deletionTimeout)
		}
		time.Sleep(min(metadataPoll, time.Until(deadline)))
	}
}
