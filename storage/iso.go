package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/isodata"
)

// loadISOData is migration 0001's Go step: it fills countries and regions
// from the embedded ISO 3166 data, insertChunk rows per statement, on conn
// (the migration's transaction). db supplies the dialect for Bun's builder.
func loadISOData(ctx context.Context, db *bun.DB, conn bun.IConn) error {
	cs, err := isodata.Countries()
	if err != nil {
		return err
	}
	countries := make([]Country, len(cs))
	for i, c := range cs {
		countries[i] = Country{
			Code: c.Code, ISO3: c.ISO3,
			NameEN: c.Names["en"], NameDE: c.Names["de"], NameFR: c.Names["fr"], NameES: c.Names["es"],
		}
	}
	if err := insertModels(ctx, db, conn, countries); err != nil {
		return fmt.Errorf("load countries: %w", err)
	}

	rs, err := isodata.Regions()
	if err != nil {
		return err
	}
	regions := make([]Region, len(rs))
	for i, r := range rs {
		regions[i] = Region{
			Code: r.Code, CountryCode: r.Country, SubCode: r.SubCode,
			NameEN: r.Names["en"], NameDE: r.Names["de"], NameFR: r.Names["fr"], NameES: r.Names["es"],
		}
	}
	if err := insertModels(ctx, db, conn, regions); err != nil {
		return fmt.Errorf("load regions: %w", err)
	}
	return nil
}

// insertModels inserts a slice of Bun models in multi-row statements.
func insertModels[T any](ctx context.Context, db *bun.DB, conn bun.IConn, rows []T) error {
	for start := 0; start < len(rows); start += insertChunk {
		chunk := rows[start:min(start+insertChunk, len(rows))]
		if _, err := db.NewInsert().Conn(conn).Model(&chunk).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
