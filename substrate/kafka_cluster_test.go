package substrate

// The adapter as it runs against a real, shared cluster, tested against embedded kfake clusters
// reached through their listen addresses with NewKafka, as a real cluster would be: the topic
// prefix, foreign topics, Cleanup, waiting out asynchronous deletion, TLS and SASL.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// otherClient is a client of the test's own, standing for whoever else uses the cluster.
type otherClient struct {
	*kadm.Client
	raw *kgo.Client
}

// ownKfake starts a one-broker kfake cluster of the test's own with opts (a test that installs
// control hooks or needs TLS cannot share kfakeCluster's), closed when the test ends, after the
// clients the test made. It skips the test in short mode.
func ownKfake(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	cluster, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	return cluster
}

func clusterAdmin(t *testing.T, addrs []string) otherClient {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return otherClient{kadm.NewClient(cl), cl}
}

// clusterTopics lists the cluster's topic names under prefix, sorted, with their IDs. It asks
// the broker: kadm answers from the client's metadata cache.
func clusterTopics(t *testing.T, adm otherClient, prefix string) []string {
	t.Helper()
	var out []string
	for name := range clusterTopicIDs(t, adm, prefix) {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// clusterGroups lists the consumer groups on the cluster whose names start with prefix, sorted.
func clusterGroups(t *testing.T, adm otherClient, prefix string) []string {
	t.Helper()
	resp, err := kmsg.NewPtrListGroupsRequest().RequestWith(context.Background(), adm.raw)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range resp.Groups {
		if strings.HasPrefix(g.Group, prefix) {
			out = append(out, g.Group)
		}
	}
	slices.Sort(out)
	return out
}

func clusterTopicIDs(t *testing.T, adm otherClient, prefix string) map[string][16]byte {
	t.Helper()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(context.Background(), adm.raw)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][16]byte)
	for _, d := range resp.Topics {
		if d.Topic != nil && strings.HasPrefix(*d.Topic, prefix) {
			out[*d.Topic] = d.TopicID
		}
	}
	return out
}

// prefixedKafka connects an adapter with prefix to addrs.
func prefixedKafka(t *testing.T, addrs []string, opts KafkaOptions) *Kafka {
	t.Helper()
	opts.ReplicationFactor = 1
	k, err := NewKafka(addrs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

func TestKafkaTopicPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	addrs := kfakeCluster(t).ListenAddrs()
	k := prefixedKafka(t, addrs, KafkaOptions{TopicPrefix: "prefix-test-"})
	adm := clusterAdmin(t, addrs)
	if k.TopicPrefix() != "prefix-test-" {
		t.Fatalf("TopicPrefix() = %q", k.TopicPrefix())
	}
	id, err := k.CreateTopic("orders", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := clusterTopics(t, adm, "prefix-test-"); !slices.Equal(got, []string{"prefix-test-orders"}) {
		t.Fatalf("topics on the cluster: %v", got)
	}
	if got := k.Topics(); len(got) != 1 || got[0].Name != "orders" || got[0].ID != id || got[0].Partitions != 2 {
		t.Fatalf("Topics() = %+v", got)
	}
	if d, err := k.DescribeTopic(id); err != nil || d.Name != "orders" || d.State != TopicAlive {
		t.Fatalf("DescribeTopic = %+v, %v", d, err)
	}
	if got, n, err := k.LookupTopic("orders"); err != nil || got != id || n != 2 {
		t.Fatalf("LookupTopic = %s, %d, %v", got, n, err)
	}
	_, err = k.CreateTopic("orders", 1)
	if !errors.Is(err, ErrTopicExists) || !strings.Contains(err.Error(), `"orders"`) {
		t.Fatalf("creating it again: %v", err)
	}
	if _, err := k.Produce(TopicPartition{id, 5}, Record{}, ProducePlain); !errors.Is(err, ErrUnknownPartition) ||
		!strings.Contains(err.Error(), `"orders"`) {
		t.Fatalf("produce to a missing partition: %v", err)
	}

	// Groups and transactional IDs live under the prefix too.
	tp := TopicPartition{id, 1}
	p, err := k.InitTransactions("tx")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.BeginTransaction(p); err != nil {
		t.Fatal(err)
	}
	if _, err := k.ProduceTx(p, tp, Record{Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if err := k.SendOffsetsToTransaction(p, "g", []GroupOffset{{tp, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := k.CommitTransaction(p); err != nil {
		t.Fatal(err)
	}
	if got, err := k.CommittedOffsets("g"); err != nil || !slices.Equal(got, []GroupOffset{{tp, 1}}) {
		t.Fatalf("CommittedOffsets = %v, %v", got, err)
	}
	groups, err := adm.ListGroups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(groups.Groups(), "prefix-test-g") || slices.Contains(groups.Groups(), "g") {
		t.Fatalf("groups on the cluster: %v", groups.Groups())
	}
	txns, err := adm.ListTransactions(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(txns.TransactionalIDs(), "prefix-test-tx") || slices.Contains(txns.TransactionalIDs(), "tx") {
		t.Fatalf("transactional IDs on the cluster: %v", txns.TransactionalIDs())
	}

	if _, err := NewKafka(addrs, KafkaOptions{TopicPrefix: "bad prefix"}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), `"bad prefix"`) {
		t.Fatalf("an illegal prefix: %v", err)
	}
	long := strings.Repeat("x", MaxTopicNameLen-len("prefix-test-")+1)
	if _, err := k.CreateTopic(long, 1); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "prefix-test-") {
		t.Fatalf("a name too long under the prefix: %v", err)
	}
}

func TestDefaultTopicPrefix(t *testing.T) {
	a, b := DefaultTopicPrefix(42), DefaultTopicPrefix(42)
	if !strings.HasPrefix(a, "parsley-42-") || a == b || validatePrefix(a) != nil {
		t.Fatalf("DefaultTopicPrefix(42) = %q, then %q", a, b)
	}
}

func TestKafkaLeavesForeignTopicsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	addrs := kfakeCluster(t).ListenAddrs()
	k := prefixedKafka(t, addrs, KafkaOptions{TopicPrefix: "foreign-test-"})
	adm := clusterAdmin(t, addrs)
	if resp, err := adm.CreateTopic(context.Background(), 1, 1, nil, "foreign-test-theirs"); err != nil || resp.Err != nil {
		t.Fatal(err, resp.Err)
	}
	foreign := TopicID(clusterTopicIDs(t, adm, "foreign-test-")["foreign-test-theirs"])
	if foreign.IsZero() {
		t.Fatal("the foreign topic is not on the cluster")
	}
	if _, err := k.CreateTopic("mine", 1); err != nil {
		t.Fatal(err)
	}

	if _, _, err := k.LookupTopic("theirs"); !errors.Is(err, ErrForeignTopic) {
		t.Fatalf("LookupTopic(theirs): %v", err)
	}
	if err := k.DeleteTopic("theirs"); !errors.Is(err, ErrForeignTopic) {
		t.Fatalf("DeleteTopic(theirs): %v", err)
	}
	if _, err := k.RecreateTopic("theirs"); !errors.Is(err, ErrForeignTopic) {
		t.Fatalf("RecreateTopic(theirs): %v", err)
	}
	if err := k.SetRetention("theirs", RetentionPolicy{MaxOffsets: 1}); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("SetRetention(theirs): %v", err)
	}
	if _, err := k.CreateTopic("theirs", 1); !errors.Is(err, ErrTopicExists) {
		t.Fatalf("CreateTopic(theirs): %v", err)
	}
	if _, err := k.Produce(TopicPartition{foreign, 0}, Record{}, ProducePlain); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("Produce to theirs: %v", err)
	}
	if _, _, err := k.Fetch(TopicPartition{foreign, 0}, 0, 0); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("Fetch from theirs: %v", err)
	}
	if _, err := k.DescribeTopic(foreign); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("DescribeTopic(theirs): %v", err)
	}
	if got := k.Topics(); len(got) != 1 || got[0].Name != "mine" {
		t.Fatalf("Topics() = %+v", got)
	}
	if err := k.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got := clusterTopics(t, adm, "foreign-test-"); !slices.Equal(got, []string{"foreign-test-theirs"}) {
		t.Fatalf("after Cleanup the cluster has %v", got)
	}
}

func TestKafkaCleanup(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	addrs := kfakeCluster(t).ListenAddrs()
	k := prefixedKafka(t, addrs, KafkaOptions{TopicPrefix: "cleanup-test-"})
	adm := clusterAdmin(t, addrs)
	for _, name := range []string{"a", "b", "c"} {
		if _, err := k.CreateTopic(name, 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := k.RecreateTopic("b"); err != nil {
		t.Fatal(err)
	}
	if err := k.DeleteTopic("c"); err != nil {
		t.Fatal(err)
	}
	idA, _, err := k.LookupTopic("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Produce(TopicPartition{Topic: idA}, Record{Value: []byte("v")}, ProducePlain); err != nil {
		t.Fatal(err)
	}
	if err := k.CommitOffsets("g", []GroupOffset{{TopicPartition: TopicPartition{Topic: idA}, Offset: 1}}); err != nil {
		t.Fatal(err)
	}
	if got := clusterTopics(t, adm, "cleanup-test-"); !slices.Equal(got, []string{"cleanup-test-a", "cleanup-test-b"}) {
		t.Fatalf("before Cleanup the cluster has %v", got)
	}
	if got := clusterGroups(t, adm, "cleanup-test-"); !slices.Equal(got, []string{"cleanup-test-g"}) {
		t.Fatalf("before Cleanup the cluster has the groups %v", got)
	}
	for range 2 { // idempotent
		if err := k.Cleanup(); err != nil {
			t.Fatal(err)
		}
		if got := clusterTopics(t, adm, "cleanup-test-"); len(got) != 0 {
			t.Fatalf("after Cleanup the cluster has %v", got)
		}
		if got := clusterGroups(t, adm, "cleanup-test-"); len(got) != 0 {
			t.Fatalf("after Cleanup the cluster has the groups %v", got)
		}
	}
	if _, err := k.CreateTopic("d", 1); !errors.Is(err, errCleanedUp) {
		t.Fatalf("CreateTopic after Cleanup: %v", err)
	}
}

// TestKafkaCleanupWhileCreating runs Cleanup on another goroutine, as a Ctrl-C handler would,
// while the run's goroutine keeps creating topics: whatever the interleaving, creation stops
// with errCleanedUp and no topic of the adapter's is left on the cluster.
func TestKafkaCleanupWhileCreating(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	addrs := kfakeCluster(t).ListenAddrs()
	k := prefixedKafka(t, addrs, KafkaOptions{TopicPrefix: "interrupt-test-"})
	created := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-created
		if err := k.Cleanup(); err != nil {
			t.Error(err)
		}
	}()
	var err error
	for i := 0; err == nil; i++ {
		_, err = k.CreateTopic("t"+strings.Repeat("x", i%200), 1)
		if i == 0 {
			close(created)
		}
		if err == nil {
			err = k.DeleteTopic("t" + strings.Repeat("x", i%200))
		}
		if errors.Is(err, ErrUnknownTopic) { // Cleanup deleted it first
			err = nil
		}
	}
	wg.Wait()
	if !errors.Is(err, errCleanedUp) {
		t.Fatalf("creation stopped with %v", err)
	}
	if got := clusterTopics(t, clusterAdmin(t, addrs), "interrupt-test-"); len(got) != 0 {
		t.Fatalf("after Cleanup the cluster has %v", got)
	}
}

// TestKafkaRecreateWaitsForDeletion makes the cluster acknowledge a deletion it has not carried
// out yet, as a real cluster does, and deletes the topic only once the adapter has seen it still
// listed: RecreateTopic must wait for that, and give up with the deletion timeout naming the
// topic if the deletion never completes.
func TestKafkaRecreateWaitsForDeletion(t *testing.T) {
	cluster := ownKfake(t)
	addrs := cluster.ListenAddrs()
	k := prefixedKafka(t, addrs, KafkaOptions{TopicPrefix: "slow-", DeletionTimeout: time.Minute})
	adm := clusterAdmin(t, addrs)
	old, err := k.CreateTopic("r", 3)
	if err != nil {
		t.Fatal(err)
	}

	// The adapter deletes by ID: acknowledge that without deleting, and let the test's own
	// deletion (by name) through.
	var pending atomic.Bool
	cluster.ControlKey(int16(kmsg.DeleteTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		r := req.(*kmsg.DeleteTopicsRequest)
		if len(r.Topics) != 1 || r.Topics[0].TopicID == [16]byte{} {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.DeleteTopicsResponse)
		st := kmsg.NewDeleteTopicsResponseTopic()
		st.TopicID = r.Topics[0].TopicID
		resp.Topics = append(resp.Topics, st)
		pending.Store(true)
		return resp, nil, true
	})
	var seenListed atomic.Int32
	stillListed := make(chan struct{}, 1)
	cluster.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
		if pending.Load() && seenListed.Add(1) == 1 {
			stillListed <- struct{}{}
		}
		return nil, nil, false
	})
	go func() {
		<-stillListed
		if _, err := adm.DeleteTopic(context.Background(), "slow-r"); err != nil {
			t.Error(err)
		}
	}()
	id, err := k.RecreateTopic("r")
	if err != nil {
		t.Fatal(err)
	}
	if id == old || seenListed.Load() < 2 {
		t.Fatalf("recreated as %s (was %s) after %d metadata requests", id, old, seenListed.Load())
	}
	if d, err := k.DescribeTopic(old); err != nil || d.State != TopicRecreated || d.CurrentID != id || d.Partitions != 3 {
		t.Fatalf("DescribeTopic(old) = %+v, %v", d, err)
	}

	// A deletion that never completes.
	k.deletionTimeout = 10 * time.Millisecond
	_, err = k.RecreateTopic("r")
	if err == nil || !strings.Contains(err.Error(), `"r"`) || !strings.Contains(err.Error(), "slow-r") ||
		!strings.Contains(err.Error(), "deletion timeout") {
		t.Fatalf("RecreateTopic with a deletion that never completes: %v", err)
	}
	// The cluster still has it: creating the name again waits for the deletion, then says so.
	_, err = k.CreateTopic("r", 3)
	if !errors.Is(err, ErrTopicExists) || !strings.Contains(err.Error(), `"r"`) || !strings.Contains(err.Error(), "deletion timeout") {
		t.Fatalf("CreateTopic while the deletion has not completed: %v", err)
	}
}

// selfSignedTLS returns a server configuration for 127.0.0.1 and the PEM of its certificate.
func selfSignedTLS(t *testing.T) (*tls.Config, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestKafkaTLSAndSASL(t *testing.T) {
	serverTLS, caPEM := selfSignedTLS(t)
	cluster := ownKfake(t, kfake.TLS(serverTLS), kfake.EnableSASL(),
		kfake.Superuser(string(SASLScramSHA256), "alice", "secret"))
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	clientTLS, err := TLSFromFiles(caFile, "", "")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvSASLUsername: "alice", EnvSASLPassword: "secret"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	auth, err := saslFrom("scram-sha-256", lookup)
	if err != nil {
		t.Fatal(err)
	}
	k := prefixedKafka(t, cluster.ListenAddrs(), KafkaOptions{TLS: clientTLS, SASL: auth, TopicPrefix: "secure-"})
	id, err := k.CreateTopic("t", 1)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := k.Produce(TopicPartition{id, 0}, Record{Value: []byte("v")}, ProducePlain); err != nil || o != 0 {
		t.Fatalf("produce over TLS and SASL: %d, %v", o, err)
	}

	env[EnvSASLPassword] = "wrong"
	wrong, err := saslFrom("SCRAM-SHA-256", lookup)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := NewKafka(cluster.ListenAddrs(), KafkaOptions{TLS: clientTLS, SASL: wrong}); err == nil {
		k.Close()
		t.Fatal("a wrong password connected")
	}
}

func TestSASLFromEnvironment(t *testing.T) {
	env := map[string]string{EnvSASLUsername: "u"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	if s, err := saslFrom("", lookup); err != nil || s != (SASL{}) {
		t.Fatalf("no mechanism: %+v, %v", s, err)
	}
	if _, err := saslFrom("GSSAPI", lookup); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "GSSAPI") {
		t.Fatalf("an unknown mechanism: %v", err)
	}
	if _, err := saslFrom("plain", lookup); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), EnvSASLPassword) {
		t.Fatalf("a missing password: %v", err)
	}
	env[EnvSASLPassword] = "p"
	if s, err := saslFrom("plain", lookup); err != nil || s != (SASL{SASLPlain, "u", "p"}) {
		t.Fatalf("plain: %+v, %v", s, err)
	}
	if _, err := TLSFromFiles("/nonexistent/ca.pem", "", ""); err == nil || !strings.Contains(err.Error(), "/nonexistent/ca.pem") {
		t.Fatalf("a missing CA file: %v", err)
	}
	if _, err := TLSFromFiles("", "cert.pem", ""); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a certificate without its key: %v", err)
	}
}

// TestKafkaCommitWaitsForMarkers makes the cluster answer EndTxn before it writes the markers, as
// a real cluster does, and writes them only once the adapter has asked whether the transaction is
// still open: CommitTransaction must return only after that, with the records visible.
func TestKafkaCommitWaitsForMarkers(t *testing.T) {
	cluster := ownKfake(t)
	k := prefixedKafka(t, cluster.ListenAddrs(), KafkaOptions{TopicPrefix: "markers-"})
	adm := clusterAdmin(t, cluster.ListenAddrs())
	id, err := k.CreateTopic("t", 2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.InitTransactions("tx")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.BeginTransaction(p); err != nil {
		t.Fatal(err)
	}
	for part := range Partition(2) {
		if _, err := k.ProduceTx(p, TopicPartition{id, part}, Record{Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}

	// The adapter's EndTxn is answered without being carried out (the control function handles
	// one request, then is dropped); the test sends the same EndTxn once the adapter has looked.
	endTxn := make(chan *kmsg.EndTxnRequest, 1)
	cluster.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		r := req.(*kmsg.EndTxnRequest)
		endTxn <- r
		return r.ResponseKind(), nil, true
	})
	var looked atomic.Int32
	lookedOnce := make(chan struct{})
	cluster.ControlKey(int16(kmsg.DescribeProducers), func(kmsg.Request) (kmsg.Response, error, bool) {
		if looked.Add(1) == 1 {
			close(lookedOnce)
		}
		return nil, nil, false
	})
	done := make(chan struct{})
	defer close(done)
	go func() {
		var r *kmsg.EndTxnRequest
		select {
		case r = <-endTxn:
		case <-done:
			return
		}
		select {
		case <-lookedOnce:
		case <-done:
			return
		}
		resp, err := r.RequestWith(context.Background(), adm.raw)
		if err == nil && resp.ErrorCode != 0 {
			err = fmt.Errorf("error code %d", resp.ErrorCode)
		}
		if err != nil {
			t.Errorf("the delayed EndTxn: %v", err)
		}
	}()
	if err := k.CommitTransaction(p); err != nil {
		t.Fatal(err)
	}
	if looked.Load() < 2 {
		t.Fatalf("CommitTransaction returned after %d looks at the transaction", looked.Load())
	}
	for part := range Partition(2) {
		recs, next, err := k.Fetch(TopicPartition{id, part}, 0, 0)
		if err != nil || len(recs) != 1 || next != 2 {
			t.Fatalf("partition %d after the commit: %d records, next %d, %v", part, len(recs), next, err)
		}
	}
}

// TestKafkaCreateWaitsForMetadata makes the cluster's metadata lag behind a topic's creation, as
// a real cluster's brokers do: CreateTopic must return only once the topic is listed with its
// partitions led, so the first write to it is not refused.
func TestKafkaCreateWaitsForMetadata(t *testing.T) {
	cluster := ownKfake(t)
	addr := cluster.ListenAddrs()[0]
	k := prefixedKafka(t, []string{addr}, KafkaOptions{TopicPrefix: "lagging-"})
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	for range 2 { // the first two requests about the topic answer that it is unknown
		cluster.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
			r := req.(*kmsg.MetadataRequest)
			if len(r.Topics) != 1 || r.Topics[0].Topic == nil || *r.Topics[0].Topic != "lagging-t" {
				return nil, nil, false
			}
			asked.Add(1)
			resp := r.ResponseKind().(*kmsg.MetadataResponse)
			b := kmsg.NewMetadataResponseBroker()
			b.Host = host
			fmt.Sscan(port, &b.Port)
			resp.Brokers = append(resp.Brokers, b)
			rt := kmsg.NewMetadataResponseTopic()
			rt.Topic = kmsg.StringPtr("lagging-t")
			rt.ErrorCode = 3 // UNKNOWN_TOPIC_OR_PARTITION
			resp.Topics = append(resp.Topics, rt)
			return resp, nil, true
		})
	}
	id, err := k.CreateTopic("t", 2)
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 2 {
		t.Fatalf("CreateTopic returned after %d lagging answers, want 2", asked.Load())
	}
	if o, err := k.Produce(TopicPartition{id, 1}, Record{Value: []byte("v")}, ProducePlain); err != nil || o != 0 {
		t.Fatalf("the first write: %d, %v", o, err)
	}
}
