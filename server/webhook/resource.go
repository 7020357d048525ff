// Package webhook serves the webhooks of the back office (issue 19): the
// resource administrators manage (a target URL, the change events it
// wants, a signing secret shown once), and the delivery of each queued
// message, signed per Standard Webhooks, through a client that refuses
// private addresses. storage/jobs follows the event feed and queues the
// deliveries; this package is what they call.
package webhook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// Sealer encrypts the signing secrets at rest with the key-encryption key
// (server/auth's KeyEncryption); nil stores them as they are.
type Sealer interface {
	Seal(aad, plain string) (string, error)
	Open(aad, stored string) (string, error)
}

// DefaultDisableAfter is Config.DisableAfter's default (the
// --webhook-disable-after setting reads it); Timeout's is
// jobs.DefaultWebhookTimeout, which bounds the delivery's job too.
const DefaultDisableAfter = 50

// Config tunes webhooks; zero values take the defaults.
type Config struct {
	Guard Guard
	// DisableAfter failed attempts in a row disable a webhook (50).
	DisableAfter int
	// Timeout bounds one delivery attempt (10 s).
	Timeout time.Duration
	// Sealer encrypts the secrets; nil: stored plain.
	Sealer Sealer
	// Types are the resource types whose events may be asked for.
	Types []string
}

// Service serves the webhooks resource and delivers messages.
type Service struct {
	engine *engine.Engine
	queue  *jobs.Queue
	cfg    Config
	types  map[string]bool
	client *http.Client
	tracer trace.Tracer // nil: no spans
}

// New builds the webhooks of an application on its engine and job queue.
func New(e *engine.Engine, q *jobs.Queue, cfg Config) *Service {
	if cfg.DisableAfter <= 0 {
		cfg.DisableAfter = DefaultDisableAfter
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = jobs.DefaultWebhookTimeout
	}
	s := &Service{engine: e, queue: q, cfg: cfg, types: map[string]bool{}}
	for _, t := range cfg.Types {
		s.types[t] = true
	}
	s.client = s.newClient()
	return s
}

// managerRoles are the roles of who manages webhooks (the route table lets
// administrators only): a message names the fields of a record they may
// read (docs/fields.md).
var managerRoles = []string{"ROLE_ADMINISTRATOR"}

// rotationOverlap is how long deliveries are signed with the previous secret
// too after a rotation.
const rotationOverlap = 24 * time.Hour

// actions are the actions an event type may name.
var actions = []string{storage.EventCreated, storage.EventUpdated, storage.EventDeleted}

// newSecret makes a signing secret: whsec_ and 32 random bytes in base64,
// as Standard Webhooks writes them.
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// secretAAD binds a sealed secret to its organization.
func secretAAD(org int64) string { return "webhook-secret/" + strconv.FormatInt(org, 10) }

func (s *Service) seal(org int64, plain string) (string, error) {
	if s.cfg.Sealer == nil {
		return plain, nil
	}
	return s.cfg.Sealer.Seal(secretAAD(org), plain)
}

func (s *Service) open(org int64, stored string) (string, error) {
	if s.cfg.Sealer == nil || strings.HasPrefix(stored, "whsec_") {
		return stored, nil
	}
	return s.cfg.Sealer.Open(secretAAD(org), stored)
}

// fields is a webhook body read from either format: what it sets, and where
// each field is (its pointer).
type fields struct {
	url        *string
	eventTypes []string
	hasTypes   bool
	enabled    *bool
	rotate     bool
	plain      bool
}

func (f *fields) pointer(name string) string {
	if f.plain {
		return "/" + name
	}
	if name == "rotateSecret" {
		return "/data/meta/rotateSecret"
	}
	return "/data/attributes/" + name
}

// readFields reads the body the validator has checked against the document.
func readFields(doc *jsonapi.Document, plain jsonapi.Object) (*fields, error) {
	f := &fields{}
	var attrs, meta map[string]json.RawMessage
	if doc != nil {
		var res jsonapi.Resource
		if err := json.Unmarshal(doc.Data, &res); err != nil {
			return nil, problem.RequestData("The primary data object is not a resource object.", "/data")
		}
		attrs, meta = res.Attributes, res.Meta
	} else {
		f.plain = true
		attrs, meta = plain, plain
	}
	var err error
	if raw, ok := attrs["url"]; ok {
		f.url = new(string)
		err = errors.Join(err, json.Unmarshal(raw, f.url))
	}
	if raw, ok := attrs["eventTypes"]; ok {
		f.hasTypes = true
		err = errors.Join(err, json.Unmarshal(raw, &f.eventTypes))
	}
	if raw, ok := attrs["enabled"]; ok {
		f.enabled = new(bool)
		err = errors.Join(err, json.Unmarshal(raw, f.enabled))
	}
	if raw, ok := meta["rotateSecret"]; ok {
		err = errors.Join(err, json.Unmarshal(raw, &f.rotate))
	}
	if err != nil {
		return nil, problem.RequestData("The body does not match the document.", "")
	}
	return f, nil
}

// check refuses what the schema cannot say: a URL that is no allowed
// target, an event type naming an unknown resource type or action.
func (s *Service) check(ctx context.Context, f *fields) error {
	var errs problem.List
	if f.url != nil {
		if detail := s.cfg.Guard.CheckURL(ctx, *f.url); detail != "" {
			errs = append(errs, problem.Constraint("url constraint", detail, f.pointer("url")))
		}
	}
	for i, t := range f.eventTypes {
		ptr := f.pointer("eventTypes") + "/" + strconv.Itoa(i)
		if t == "*" {
			continue
		}
		typ, action, ok := strings.Cut(t, ".")
		switch {
		case !ok:
			errs = append(errs, problem.Constraint("choice constraint",
				"An event type is <resource type>.<action>, <resource type>.* or *.", ptr))
		case !s.types[typ]:
			errs = append(errs, problem.Constraint("choice constraint",
				fmt.Sprintf("%q is not a resource type whose events can be delivered.", typ), ptr))
		case action != "*" && !slices.Contains(actions, action):
			errs = append(errs, problem.Constraint("choice constraint",
				"The action should be created, updated, deleted or *.", ptr))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
