package substrate

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDCacheAgreesWithLookup resolves random IDs (live, deleted, recreated, never issued) through
// models whose ID cache is warm — the same model over and over, and clones of it that go on
// creating topics — and checks every answer against the same model with its cache emptied. With
// a dozen incarnations the cache's slots are shared and topicIndex both scans and hashes. It
// fails if a cache entry outlives its truth or answers for another ID.
func TestIDCacheAgreesWithLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	m := NewSeededModel(9)
	var ids []TopicID
	for i := range 6 {
		id, err := m.CreateTopic(fmt.Sprintf("t%d", i), 1+i%2)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	ids = append(ids, TopicID{1, 2, 3}) // never issued
	models := []*Model{m}
	hits := 0
	for step := range 4000 {
		mm := models[rng.IntN(len(models))]
		switch r := rng.IntN(100); {
		case r < 1:
			if id, err := mm.RecreateTopic(fmt.Sprintf("t%d", rng.IntN(6))); err == nil {
				ids = append(ids, id)
			}
		case r < 2:
			_ = mm.DeleteTopic(fmt.Sprintf("t%d", rng.IntN(6)))
		case r < 4 && len(models) < 4:
			models = append(models, mm.Clone())
		case r < 10:
			tp := TopicPartition{Topic: ids[rng.IntN(len(ids))], Partition: 0}
			_, _ = mm.Produce(tp, Record{Value: []byte("v")}, ProducePlain)
		}
		tp := TopicPartition{Topic: ids[rng.IntN(len(ids))], Partition: Partition(rng.IntN(2))}
		got, gotErr := mm.ListOffsets(tp)
		cold := *mm
		cold.idCache = [idCacheSize]idCacheEntry{}
		want, wantErr := cold.ListOffsets(tp)
		if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("step %d: ListOffsets(%v) = %v, %v with the cache, %v, %v without", step, tp, got, gotErr, want, wantErr)
		}
		if gotErr == nil {
			hits++
		}
	}
	if hits < 800 || len(ids) < 10 {
		t.Fatalf("only %d successful lookups over %d IDs", hits, len(ids))
	}
}
