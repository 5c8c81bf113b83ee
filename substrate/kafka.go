package substrate

// The franz-go adapter: Substrate over the Kafka protocol, against an in-process kfake cluster
// (NewKfake) or real brokers (NewKafka).
//
// Everything the contract makes observable goes through raw kmsg requests on one kgo client, so
// the adapter controls exactly what is asked of the broker: produce batches carry explicit
// producer IDs, epochs and sequence numbers; fetches are read_committed by topic ID with the
// markers and aborted records filtered client-side exactly as KafkaConsumer does; transactions
// are driven with InitProducerID / AddPartitionsToTxn / AddOffsetsToTxn / TxnOffsetCommit /
// EndTxn. Request versions are capped at Kafka 3.5's (the classic transaction protocol, before
// KIP-890's implicit partition registration and per-transaction epoch bumps), which every broker
// from 3.5 on still serves. kgo's own consumer and producer are never used, so nothing falls back
// to a reset policy or caches a recreated topic's old ID.
//
// The adapter keeps its own table of the topics it created so that it can answer DescribeTopic
// (Kafka forgets deleted IDs) and address name-based requests. It only ever works on those: a
// name bound on the cluster to a topic it did not create is ErrForeignTopic, and a topic is
// deleted by its ID, never by name. Every name it uses on the cluster (topics, groups,
// transactional IDs) is under KafkaOptions.TopicPrefix (kafka_cluster.go). Retention is the
// adapter's own, by DeleteRecords at AdvanceClock from the run's virtual time; topics are created
// with broker retention disabled so virtual timestamps far in the past are not deleted by the
// broker.

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// Kafka is the Substrate over franz-go. It is not safe for concurrent use.
type Kafka struct {
	cl          *kgo.Client
	adm         *kadm.Client
	cluster     *kfake.Cluster // nil against real brokers
	timeout     time.Duration
	prefix      string // of every topic, group and transactional ID on the cluster
	replication int16  // of created topics; -1 for the broker default
	// deletionTimeout bounds the wait for the cluster to finish deleting a topic.
	deletionTimeout time.Duration
	owned           ownedTopics // live topics created here, for Cleanup
	decompressor    kgo.Decompressor

	topics map[TopicID]*kafkaTopic // every ID this adapter created
	byName map[string]TopicID      // live names (the run's, without the prefix)

	idempotent producerFields                     // the idempotent producer's ID and epoch, once initialised
	sequences  map[TopicPartition]int32           // next sequence of the idempotent producer
	txns       []kafkaTxn                         // one per transactional ID, in order of first init
	txnByName  map[string]int32                   // transactional ID -> slot
	groups     map[string]bool                    // groups this adapter committed offsets for
	committed  map[groupPartition]GroupOffset     // last offset committed per group partition, with its incarnation
	retention  map[TopicID]RetentionPolicy        // carried out at AdvanceClock (kafka_retention.go)
	times      map[TopicPartition]*partitionTimes // virtual time of each offset, for retention
	leaders    map[TopicPartition]int32           // partition leader cache
	clock      int64                              // virtual clock, micros
}

// kafkaTopic is what the adapter remembers of one topic incarnation it created.
type kafkaTopic struct {
	name       string // the run's name; the cluster's is the prefix and this
	partitions int
	deleted    bool
}

// KafkaOptions configure NewKafka.
type KafkaOptions struct {
	// Timeout bounds every broker round trip (default 10 s).
	Timeout time.Duration
	// ClientOptions are extra kgo options (logging, for instance). Request-version caps, seed
	// brokers, TLS and SASL are set by the adapter.
	ClientOptions []kgo.Opt
	// ReplicationFactor for created topics; 0 means the broker default.
	ReplicationFactor int16
	// TLS, when set, encrypts every connection with this client configuration (TLSFromFiles
	// builds one).
	TLS *tls.Config
	// SASL authenticates every connection (SASLFromEnv reads the credentials); the zero value
	// does not authenticate.
	SASL SASL
	// TopicPrefix goes before every topic name, consumer group and transactional ID the adapter
	// uses on the cluster: the run's topic "orders" is TopicPrefix+"orders" there, while
	// descriptions, listings and errors speak of "orders". Empty means no prefix (a cluster of
	// the run's own, such as NewKfake's). DefaultTopicPrefix makes one for a shared cluster.
	TopicPrefix string
	// DeletionTimeout bounds how long DeleteTopic and RecreateTopic wait for the cluster to
	// finish deleting a topic (DefaultDeletionTimeout when zero).
	DeletionTimeout time.Duration
}

// NewKafka connects to real brokers (host:port seed addresses). The brokers must be Kafka 3.5 or
// later with topic IDs (KRaft or ZooKeeper mode both work).
func NewKafka(brokers []string, opts KafkaOptions) (*Kafka, error) {
	if len(brokers) == 0 {
		return nil, fmt.Errorf("%w: no seed brokers", ErrInvalidArgument)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.DeletionTimeout <= 0 {
		opts.DeletionTimeout = DefaultDeletionTimeout
	}
	if err := validatePrefix(opts.TopicPrefix); err != nil {
		return nil, err
	}
	var security []kgo.Opt
	if opts.TLS != nil {
		security = append(security, kgo.DialTLSConfig(opts.TLS.Clone()))
	}
	if auth, err := opts.SASL.clientOpt(); err != nil {
		return nil, err
	} else if auth != nil {
		security = append(security, auth)
	}
	clientOpts := append([]kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.MaxVersions(kversion.V3_5_0()),
		kgo.RequestRetries(3),
		kgo.RetryTimeout(opts.Timeout),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		// The adapter never consumes through kgo; these document the fetch semantics it
		// implements by hand and guard any future use of kgo's consumer.
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
	}, append(security, opts.ClientOptions...)...)
	cl, err := kgo.NewClient(clientOpts...)
	if err != nil {
		return nil, fmt.Errorf("substrate: kafka client: %w", err)
	}
	k := &Kafka{
		cl:              cl,
		adm:             kadm.NewClient(cl),
		timeout:         opts.Timeout,
		prefix:          opts.TopicPrefix,
		replication:     cmp.Or(opts.ReplicationFactor, -1),
		deletionTimeout: opts.DeletionTimeout,
		owned:           ownedTopics{live: make(map[TopicID]string), groups: make(map[string]bool)},
		decompressor:    kgo.DefaultDecompressor(),
		topics:          make(map[TopicID]*kafkaTopic),
		byName:          make(map[string]TopicID),
		sequences:       make(map[TopicPartition]int32),
		txnByName:       make(map[string]int32),
		groups:          make(map[string]bool),
		committed:       make(map[groupPartition]GroupOffset),
		retention:       make(map[TopicID]RetentionPolicy),
		times:           make(map[TopicPartition]*partitionTimes),
		leaders:         make(map[TopicPartition]int32),
		idempotent:      noProducer,
	}
	k.adm.SetTimeoutMillis(int32(opts.Timeout / time.Millisecond))
	ctx, cancel := k.ctx()
	defer cancel()
	if err := k.cl.Ping(ctx); err != nil {
		k.cl.Close()
		return nil, fmt.Errorf("substrate: kafka at %v unreachable: %w", brokers, err)
	}
	return k, nil
}

// NewKfake starts an in-process kfake cluster (one broker unless opts say otherwise) and
// returns an adapter connected to it; Close stops the cluster.
func NewKfake(opts ...kfake.Opt) (*Kafka, error) {
	cluster, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("substrate: starting kfake: %w", err)
	}
	k, err := NewKafka(cluster.ListenAddrs(), KafkaOptions{ReplicationFactor: 1})
	if err != nil {
		cluster.Close()
		return nil, err
	}
	k.cluster = cluster
	return k, nil
}

// Close implements Substrate.
func (k *Kafka) Close() error {
	k.cl.Close()
	if k.cluster != nil {
		k.cluster.Close()
	}
	return nil
}

func (k *Kafka) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), k.timeout)
}

// retryBackoff is the pause between attempts of a request the broker asked us to retry.
const retryBackoff = 5 * time.Millisecond

// retrying reports whether a broker error is transient for the adapter's purposes: coordinator
// moves and concurrent transaction completion. Unknown topics are deliberately not retried.
func retrying(err error) bool {
	return errors.Is(err, kerr.ConcurrentTransactions) || errors.Is(err, kerr.CoordinatorLoadInProgress) ||
		errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable) ||
		errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.LeaderNotAvailable) ||
		errors.Is(err, kerr.RequestTimedOut)
}

// withRetry runs attempt until it succeeds, fails for good, or the adapter's timeout passes.
func (k *Kafka) withRetry(attempt func(ctx context.Context) error) error {
	ctx, cancel := k.ctx()
	defer cancel()
	for {
		err := attempt(ctx)
		if err == nil || !retrying(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("substrate: gave up retrying: %w", err)
		case <-time.After(retryBackoff):
		}
	}
}

// mapErr translates a broker error into the contract's sentinels, keeping the original text.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	var sentinel error
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition), errors.Is(err, kerr.UnknownTopicID),
		errors.Is(err, kerr.InconsistentTopicID):
		sentinel = ErrUnknownTopic
	case errors.Is(err, kerr.OffsetOutOfRange):
		sentinel = ErrOffsetOutOfRange
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch):
		sentinel = ErrFenced
	case errors.Is(err, kerr.InvalidTxnState):
		sentinel = ErrTxnState
	case errors.Is(err, kerr.TopicAlreadyExists):
		sentinel = ErrTopicExists
	case errors.Is(err, kerr.InvalidTopicException), errors.Is(err, kerr.InvalidPartitions),
		errors.Is(err, kerr.InvalidRequest):
		sentinel = ErrInvalidArgument
	case errors.Is(err, kerr.UnsupportedVersion):
		sentinel = ErrUnsupported
	default:
		return fmt.Errorf("substrate: %s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %v", sentinel, what, err)
}

// topicConfigs disable broker-side retention: the run's virtual timestamps may be decades in the
// past by the wall clock, and retention is the substrate's job (AdvanceClock).
func topicConfigs() map[string]*string {
	off := "-1"
	return map[string]*string{"retention.ms": &off, "retention.bytes": &off}
}

// CreateTopic implements Substrate: the topic is the prefix and name on the cluster. A name this
// adapter deleted may still be being deleted on a real cluster (which then answers
// TOPIC_ALREADY_EXISTS): creation is retried until the deletion completes or the deletion timeout
// passes. A name bound to a topic this adapter did not create is ErrTopicExists.
func (k *Kafka) CreateTopic(name string, partitions int) (TopicID, error) {
	if err := k.validateName(name); err != nil {
		return TopicID{}, err
	}
	if partitions < 1 || partitions > MaxPartitions {
		return TopicID{}, fmt.Errorf("%w: topic %q with %d partitions (need 1-%d)",
			ErrInvalidArgument, name, partitions, MaxPartitions)
	}
	if k.cleanedUp() {
		return TopicID{}, fmt.Errorf("create topic %q: %w", name, errCleanedUp)
	}
	cluster := k.clusterName(name)
	wasDeletedHere := k.deletedName(name)
	deadline := time.Now().Add(k.deletionTimeout)
	var resp kadm.CreateTopicResponse
	for {
		err := k.withRetry(func(ctx context.Context) error {
			var err error
			resp, err = k.adm.CreateTopic(ctx, int32(partitions), k.replication, topicConfigs(), cluster)
			if err == nil {
				err = resp.Err
			}
			return err
		})
		if errors.Is(err, kerr.TopicAlreadyExists) && wasDeletedHere {
			if time.Now().Before(deadline) {
				time.Sleep(min(metadataPoll, time.Until(deadline))) // still being deleted
				continue
			}
			return TopicID{}, fmt.Errorf("%w: %s: the cluster still has the deleted topic of that name %v after "+
				"(the deletion timeout)", ErrTopicExists, k.topicWhat("create", name), k.deletionTimeout)
		}
		if err != nil {
			return TopicID{}, mapErr(err, k.topicWhat("create", name))
		}
		break
	}
	id := TopicID(resp.ID)
	if id.IsZero() {
		return TopicID{}, fmt.Errorf("%w: broker returned no topic ID for %q (topic IDs need Kafka 2.8+)",
			ErrUnsupported, cluster)
	}
	if err := k.addOwned(id, cluster); err != nil {
		return TopicID{}, fmt.Errorf("create topic %q: %w", name, err)
	}
	k.topics[id] = &kafkaTopic{name: name, partitions: partitions}
	k.byName[name] = id
	if err := k.awaitCreation(name, id, partitions); err != nil {
		return TopicID{}, err
	}
	return id, nil
}

// awaitCreation polls the cluster's metadata until name is bound to id with every partition
// led: a real cluster answers CreateTopics once its controller has recorded the topic, and its
// brokers learn of it afterwards, so a write sent at once could be refused as being for an
// unknown topic. It learns the partitions' leaders on the way, which the first write needs
// anyway, and gives up after the adapter's timeout with an error naming the topic.
func (k *Kafka) awaitCreation(name string, id TopicID, partitions int) error {
	deadline := time.Now().Add(k.timeout)
	for {
		cur, parts, err := k.clusterBinding(name)
		if err != nil {
			return err
		}
		led := 0
		if cur == id {
			for _, p := range parts {
				if p.Leader >= 0 && kerr.ErrorForCode(p.ErrorCode) == nil {
					led++
					k.leaders[TopicPartition{id, Partition(p.Partition)}] = p.Leader
				}
			}
		}
		if led == partitions {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("substrate: %s: the cluster does not list it with its %d partitions led %v after "+
				"creating it", k.topicWhat("create", name), partitions, k.timeout)
		}
		time.Sleep(min(metadataPoll, time.Until(deadline)))
	}
}

// topicWhat describes an operation on topic name for an error, with its cluster name when the
// two differ.
func (k *Kafka) topicWhat(op, name string) string {
	if k.prefix == "" {
		return fmt.Sprintf("%s topic %q", op, name)
	}
	return fmt.Sprintf("%s topic %q (%q on the cluster)", op, name, k.clusterName(name))
}

// deletedName reports whether this adapter created and deleted a topic named name that is not
// bound now.
func (k *Kafka) deletedName(name string) bool {
	if _, live := k.byName[name]; live {
		return false
	}
	for _, t := range k.topics {
		if t.name == name && t.deleted {
			return true
		}
	}
	return false
}

// DeleteTopic implements Substrate: only a topic this adapter created, by its ID, and it returns
// once the cluster no longer lists it (awaitDeletion). It also deletes the topic's offsets from
// every group the adapter has committed to, as Kafka's group coordinator does when partitions are
// deleted (kfake keeps them, and a recreated topic would otherwise inherit them by name).
func (k *Kafka) DeleteTopic(name string) error {
	id, _, err := k.LookupTopic(name)
	if err != nil {
		return err
	}
	t := k.topics[id]
	cluster := k.clusterName(name)
	ctx, cancel := k.ctx()
	defer cancel()
	set := make(kadm.TopicsSet)
	for p := range t.partitions {
		set.Add(cluster, int32(p))
	}
	for _, group := range slices.Sorted(maps.Keys(k.groups)) {
		if _, err := k.adm.DeleteOffsets(ctx, k.clusterGroup(group), set); err != nil &&
			!errors.Is(err, kerr.GroupIDNotFound) {
			return mapErr(err, fmt.Sprintf("delete offsets of %q in group %q", name, group))
		}
	}
	if err := k.deleteByID(id, cluster); err != nil {
		return err
	}
	k.removeOwned(id)
	t.deleted = true
	delete(k.byName, name)
	for key := range k.committed {
		if key.topic == name {
			delete(k.committed, key)
		}
	}
	delete(k.retention, id)
	for tp := range k.leaders {
		if tp.Topic == id {
			delete(k.leaders, tp)
		}
	}
	for tp := range k.times {
		if tp.Topic == id {
			delete(k.times, tp)
		}
	}
	k.cl.PurgeTopicsFromClient(cluster)
	return k.awaitDeletion(name, id)
}

// RecreateTopic implements Substrate.
func (k *Kafka) RecreateTopic(name string) (TopicID, error) {
	_, partitions, err := k.LookupTopic(name)
	if err != nil {
		return TopicID{}, err
	}
	if err := k.DeleteTopic(name); err != nil {
		return TopicID{}, err
	}
	return k.CreateTopic(name, partitions)
}

// metadata asks the broker (never kgo's metadata cache, which remembers that a name did not
// exist) about one topic by its cluster name, or about all topics when cluster is "".
func (k *Kafka) metadata(cluster string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	if cluster != "" {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(cluster)
		req.Topics = append(req.Topics, rt)
	}
	var resp *kmsg.MetadataResponse
	err := k.withRetry(func(ctx context.Context) error {
		var err error
		resp, err = req.RequestWith(ctx, k.cl)
		return err
	})
	return resp, err
}

// clusterBinding asks the broker which ID name is bound to on the cluster (zero if none), with
// its partitions' leaders.
func (k *Kafka) clusterBinding(name string) (TopicID, []kmsg.MetadataResponseTopicPartition, error) {
	resp, err := k.metadata(k.clusterName(name))
	if err != nil {
		return TopicID{}, nil, mapErr(err, k.topicWhat("look up", name))
	}
	if len(resp.Topics) != 1 || kerr.ErrorForCode(resp.Topics[0].ErrorCode) != nil {
		return TopicID{}, nil, nil
	}
	return TopicID(resp.Topics[0].TopicID), resp.Topics[0].Partitions, nil
}

// LookupTopic implements Substrate; it asks the broker. A name bound on the cluster to a topic
// this adapter did not create is ErrForeignTopic; a topic of this adapter's deleted behind its
// back is ErrUnknownTopic from then on.
func (k *Kafka) LookupTopic(name string) (TopicID, int, error) {
	if err := k.validateName(name); err != nil {
		return TopicID{}, 0, err
	}
	id, parts, err := k.clusterBinding(name)
	if err != nil {
		return TopicID{}, 0, err
	}
	if old, ok := k.byName[name]; ok && old != id {
		k.topics[old].deleted = true // deleted, maybe recreated, behind our back
		delete(k.byName, name)
		k.removeOwned(old)
	}
	if id.IsZero() {
		return TopicID{}, 0, fmt.Errorf("%w: name %q", ErrUnknownTopic, name)
	}
	if t, ok := k.topics[id]; !ok || t.deleted {
		return TopicID{}, 0, fmt.Errorf("%w: %s is id %s", ErrForeignTopic, k.topicWhat("look up", name), id)
	}
	for _, p := range parts {
		k.leaders[TopicPartition{id, Partition(p.Partition)}] = p.Leader
	}
	return id, len(parts), nil
}

// DescribeTopic implements Substrate. Kafka forgets deleted IDs, so only IDs this adapter
// created can be described; the name's current binding is asked of the broker. A name now bound
// to a topic this adapter did not create describes as TopicDeleted: for this adapter the name is
// bound to none of its topics.
func (k *Kafka) DescribeTopic(id TopicID) (TopicDescription, error) {
	t, ok := k.topics[id]
	if !ok {
		return TopicDescription{}, fmt.Errorf("%w: id %s was not created by this adapter", ErrUnknownTopic, id)
	}
	d := TopicDescription{ID: id, Name: t.name, Partitions: t.partitions}
	cur, _, err := k.clusterBinding(t.name)
	if err != nil {
		return TopicDescription{}, err
	}
	curTopic, ours := k.topics[cur]
	switch {
	case cur == id:
		d.State, d.CurrentID = TopicAlive, id
	case ours && !curTopic.deleted:
		d.State, d.CurrentID = TopicRecreated, cur
	default:
		d.State = TopicDeleted
	}
	if cur != id && !t.deleted {
		t.deleted = true // deleted behind our back
		delete(k.byName, t.name)
		k.removeOwned(id)
	}
	return d, nil
}

// Topics implements Substrate: the live topics this adapter created, by the run's names, sorted
// by name (nil if the broker cannot be reached).
func (k *Kafka) Topics() []TopicDescription {
	resp, err := k.metadata("")
	if err != nil {
		return nil
	}
	var out []TopicDescription
	for _, d := range resp.Topics {
		if d.Topic == nil || d.IsInternal || kerr.ErrorForCode(d.ErrorCode) != nil {
			continue
		}
		id := TopicID(d.TopicID)
		name, under := k.scenarioName(*d.Topic)
		if t, ok := k.topics[id]; !under || !ok || t.deleted || t.name != name {
			continue
		}
		out = append(out, TopicDescription{ID: id, Name: name, State: TopicAlive,
			Partitions: len(d.Partitions), CurrentID: id})
	}
	slices.SortFunc(out, func(a, b TopicDescription) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// knownPartition resolves tp against the adapter's table: the topic's name, or
// ErrUnknownTopic / ErrUnknownPartition.
func (k *Kafka) knownPartition(tp TopicPartition) (string, error) {
	t, ok := k.topics[tp.Topic]
	if !ok || t.deleted {
		return "", fmt.Errorf("%w: id %s", ErrUnknownTopic, tp.Topic)
	}
	if tp.Partition < 0 || int(tp.Partition) >= t.partitions {
		return "", fmt.Errorf("%w: %s (%q) partition %d of %d", ErrUnknownPartition, tp.Topic, t.name,
			tp.Partition, t.partitions)
	}
	return t.name, nil
}

// broker returns the leader of tp (from the cache, else metadata), or any broker if unknown.
func (k *Kafka) broker(tp TopicPartition) *kgo.Broker {
	leader, ok := k.leaders[tp]
	if !ok {
		if t, known := k.topics[tp.Topic]; known && !t.deleted {
			_, _, _ = k.LookupTopic(t.name)
			leader, ok = k.leaders[tp]
		}
	}
	if !ok || leader < 0 {
		if resp, err := k.metadata(""); err == nil && len(resp.Brokers) > 0 {
			leader = resp.Brokers[0].NodeID
		}
	}
	return k.cl.Broker(int(leader))
}
