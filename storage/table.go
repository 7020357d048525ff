package storage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// orgColumn is the column that scopes a row to an organization. It is set
// from the caller's organization, never from a Row, so Table.Columns leaves it out.
const orgColumn = "organization_id"

// Common column names the writes fill in themselves.
const (
	createdColumn = "created_at"
	updatedColumn = "updated_at"
)

// lookupTimeout bounds catalog look-ups made while reporting an error.
const lookupTimeout = 5 * time.Second

// Table returns the description of a table of models (models.go), or false.
// The result is shared: callers must not modify it.
func (s *Store) Table(name string) (*Table, bool) {
	t, ok := s.tables[name]
	return t, ok
}

// JoinTable returns the description of a join table of joinModels
// (models.gen.go), or false. The result is shared: callers must not modify it.
func (s *Store) JoinTable(name string) (*JoinTable, bool) {
	j, ok := s.joins[name]
	return j, ok
}

// buildJoinTables derives every JoinTable from its Bun model, at Open.
func buildJoinTables(db *bun.DB, tables map[string]*Table) (map[string]*JoinTable, error) {
	joins := make(map[string]*JoinTable, len(joinModels))
	for _, m := range joinModels {
		st := db.Table(reflect.TypeOf(m).Elem())
		fields := slices.Clone(st.Fields)
		slices.SortStableFunc(fields, func(a, b *schema.Field) int { return slices.Compare(a.Index, b.Index) })
		if len(fields) != 2 || !fields[0].IsPK || !fields[1].IsPK {
			return nil, fmt.Errorf("storage: join model %s: want exactly two key columns", st.TypeName)
		}
		if _, clash := tables[st.Name]; clash {
			return nil, fmt.Errorf("storage: join model %s: table %s is also a model", st.TypeName, st.Name)
		}
		j := &JoinTable{Name: st.Name, Left: fields[0].Name, Right: fields[1].Name}
		var err error
		if j.LeftKind, err = fieldKind(fields[0]); err != nil {
			return nil, fmt.Errorf("storage: join model %s: %w", st.TypeName, err)
		}
		if j.RightKind, err = fieldKind(fields[1]); err != nil {
			return nil, fmt.Errorf("storage: join model %s: %w", st.TypeName, err)
		}
		if j.Left == orgColumn || j.Right == orgColumn {
			return nil, fmt.Errorf("storage: join model %s: join tables carry no %s", st.TypeName, orgColumn)
		}
		joins[j.Name] = j
	}
	return joins, nil
}

// kind returns the Kind of one of the join table's two columns.
func (j *JoinTable) kind(col string) (Kind, bool) {
	switch col {
	case j.Left:
		return j.LeftKind, true
	case j.Right:
		return j.RightKind, true
	}
	return 0, false
}

// other returns the join table's column that is not col.
func (j *JoinTable) other(col string) string {
	if col == j.Left {
		return j.Right
	}
	return j.Left
}

// filterKind returns the Kind of a column conditions may test: a declared
// column, or organization_id on a Scoped table.
func (t *Table) filterKind(col string) (Kind, bool) {
	if col == orgColumn && t.Scoped {
		return KindInt, true
	}
	k, ok := t.Columns[col]
	return k, ok
}

// buildTables derives every Table from the Bun models once, at Open, so that
// column names reach SQL only from these declarations.
func buildTables(db *bun.DB) (map[string]*Table, error) {
	tables := make(map[string]*Table, len(models))
	for _, m := range models {
		t, err := tableOf(db.Table(reflect.TypeOf(m).Elem()))
		if err != nil {
			return nil, err
		}
		tables[t.Name] = t
	}
	return tables, nil
}

// tableOf converts Bun's schema of one model.
func tableOf(st *schema.Table) (*Table, error) {
	t := &Table{Name: st.Name, Columns: make(map[string]Kind, len(st.Fields))}
	fields := slices.Clone(st.Fields)
	// Bun lists primary keys first; Order follows the struct instead.
	slices.SortStableFunc(fields, func(a, b *schema.Field) int { return slices.Compare(a.Index, b.Index) })
	for _, f := range fields {
		if f.Name == orgColumn {
			t.Scoped = true
			continue
		}
		k, err := fieldKind(f)
		if err != nil {
			return nil, fmt.Errorf("storage: model %s: %w", st.TypeName, err)
		}
		t.Columns[f.Name] = k
		t.Order = append(t.Order, f.Name)
		if f.IsPK {
			if t.Key != "" {
				return nil, fmt.Errorf("storage: model %s: more than one key column besides %s", st.TypeName, orgColumn)
			}
			t.Key = f.Name
			t.AutoKey = f.AutoIncrement || f.Identity
		}
	}
	if k, ok := t.Columns[VersionColumn]; ok {
		if k != KindInt {
			return nil, fmt.Errorf("storage: model %s: column %s is not int64", st.TypeName, VersionColumn)
		}
		t.Versioned = true
	}
	if t.Key == "" {
		return nil, fmt.Errorf("storage: model %s: no primary key column besides %s", st.TypeName, orgColumn)
	}
	if t.AutoKey && t.Columns[t.Key] != KindInt {
		return nil, fmt.Errorf("storage: model %s: generated key %s is not int64", st.TypeName, t.Key)
	}
	return t, nil
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	rawJSONType = reflect.TypeFor[json.RawMessage]()
)

// fieldKind maps a model field's Go type (pointers mean NULL is allowed) to
// the Kind its values travel as.
func fieldKind(f *schema.Field) (Kind, error) {
	switch typ := f.IndirectType; {
	case typ == timeType:
		if strings.EqualFold(f.UserSQLType, "date") {
			return KindDate, nil
		}
		return KindTime, nil
	case typ == rawJSONType:
		return KindJSON, nil
	case typ.Kind() == reflect.String:
		return KindString, nil
	case typ.Kind() == reflect.Int64:
		return KindInt, nil
	case typ.Kind() == reflect.Float64:
		return KindFloat, nil
	case typ.Kind() == reflect.Bool:
		return KindBool, nil
	default:
		return 0, fmt.Errorf("field %s: unsupported Go type %s", f.GoName, f.StructField.Type)
	}
}
