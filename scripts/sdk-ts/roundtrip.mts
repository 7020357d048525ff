// The TypeScript SDK round trip: what a partner's program does with openapi-fetch and the
// types `make sdk` generates (gen/sdk/ts/backoffice.ts) against a running entityapi:
// a token, create, list with filters and paging, get with include, update, upsert, a
// typed error, delete, and a batch followed to the end. It is compiled with
// `tsc --strict` and run with node by server/sdk_ts_test.go (CI), or by hand:
//
//   scripts/node_modules/.bin/tsc -p scripts/sdk-ts --outDir /tmp/sdk-ts
//   ln -s "$PWD/scripts/node_modules" /tmp/sdk-ts/node_modules
//   ENTITYAPI_URL=http://127.0.0.1:8080 node /tmp/sdk-ts/scripts/sdk-ts/roundtrip.mjs
//
// ENTITYAPI_URL is the server's root (the back office is under /admin);
// ENTITYAPI_CLIENT_ID and ENTITYAPI_CLIENT_SECRET default to make run's demo-backoffice.
// It prints one line per step and exits 1 on the first unexpected answer.
import createClient from "openapi-fetch";
import type { components, paths } from "../../gen/sdk/ts/backoffice.js";

// The Node globals used here, declared rather than pulling in @types/node.
declare const process: { env: Record<string, string | undefined>; exitCode?: number };

type Schemas = components["schemas"];
const JSONAPI = "application/vnd.api+json";
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

const root = (process.env.ENTITYAPI_URL ?? "http://127.0.0.1:8080").replace(/\/$/, "");
const clientId = process.env.ENTITYAPI_CLIENT_ID ?? "demo-backoffice";
const clientSecret = process.env.ENTITYAPI_CLIENT_SECRET ?? `${clientId}-secret`;
const run = Date.now().toString(36); // unique names, so that the program can run twice on one server

function check(ok: unknown, what: string, answer?: unknown): asserts ok {
  if (!ok) {
    throw new Error(`${what}${answer === undefined ? "" : `: ${JSON.stringify(answer)}`}`);
  }
}

function step(name: string): void {
  console.log(`ok  ${name}`);
}

async function main(): Promise<void> {
  // The token endpoint takes application/json (or a form): a client without the JSON:API headers.
  const auth = createClient<paths>({ baseUrl: `${root}/admin` });
  const token = await auth.POST("/oauth2-token", {
    body: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
  });
  check(token.data?.token_type === "Bearer", `createToken ${token.response.status}`, token.error);
  step("createToken");

  // Every other request sends the JSON:API media type in Accept and Content-Type: without them
  // openapi-fetch sends application/json and the server answers in the plain format. The second
  // type argument narrows the typed answers to the JSON:API documents.
  const api = createClient<paths, typeof JSONAPI>({
    baseUrl: `${root}/admin`,
    headers: { Accept: JSONAPI, "Content-Type": JSONAPI, Authorization: `Bearer ${token.data.access_token}` },
  });

  // Bodies are declared with the document's own types: the operations accept the plain format's
  // body too, and TypeScript checks an object literal against such a union less strictly.
  const newContact: Schemas["ContactCreateDocument"] = {
    data: { type: "contacts", attributes: { firstName: "Ada", lastName: `Lovelace ${run}` } },
  };
  const contact = await api.POST("/api/contacts", { body: newContact });
  check(contact.response.status === 201 && contact.data, "createContact", contact.error);
  const contactId = contact.data.data.id;
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    const body: Schemas["AccountCreateDocument"] = {
      data: {
        type: "accounts",
        attributes: { name: `TS ${run} ${n}`, externalId: `TS-${run}-${n}` },
        relationships: n === 1 ? { contacts: { data: [{ type: "contacts", id: contactId }] } } : undefined,
      },
    };
    const created = await api.POST("/api/accounts", { body });
    check(created.response.status === 201 && created.data, `createAccount ${n}`, created.error);
    check(created.response.headers.get("Location")?.endsWith(`/admin/api/accounts/${created.data.data.id}`), "Location");
    ids.push(created.data.data.id);
  }
  step("createContact, createAccount x3");

  const pages: string[][] = [];
  for (const page of [1, 2]) {
    const list = await api.GET("/api/accounts", {
      params: {
        query: { "filter[externalId]": ids.map((_, i) => `TS-${run}-${i + 1}`).join(","), sort: "-name", "page[number]": page, "page[size]": 2 },
        header: { "X-Include": "totalCount" },
      },
    });
    check(list.data, `listAccounts page ${page}`, list.error);
    check(list.response.headers.get("X-Include-Total-Count") === "3", "X-Include-Total-Count");
    check((list.data.links?.next !== undefined) === (page === 1), `links.next on page ${page}`, list.data.links);
    pages.push(list.data.data.map((a: Schemas["Account"]) => a.attributes?.name ?? ""));
  }
  check(JSON.stringify(pages) === JSON.stringify([[`TS ${run} 3`, `TS ${run} 2`], [`TS ${run} 1`]]), "pages", pages);
  step("listAccounts with a filter, sort and paging");

  const one = await api.GET("/api/accounts/{id}", { params: { path: { id: ids[0]! }, query: { include: "contacts" } } });
  check(one.data, "getAccount", one.error);
  const included = (one.data.included ?? []).filter((r): r is Schemas["Contact"] => r.type === "contacts");
  check(included.length === 1 && included[0]!.id === contactId && included[0]!.attributes?.firstName === "Ada", "included contact", one.data.included);
  step("getAccount with include=contacts");

  const change: Schemas["AccountUpdateDocument"] = {
    data: { type: "accounts", id: ids[1]!, attributes: { name: `TS ${run} renamed` } },
  };
  const updated = await api.PATCH("/api/accounts/{id}", { params: { path: { id: ids[1]! } }, body: change });
  check(updated.data?.data.attributes?.name === `TS ${run} renamed`, "updateAccount", updated.error);
  step("updateAccount");

  let upsertedId = "";
  for (const [name, status] of [["Upserted", 201], ["Upserted again", 200]] as const) {
    const body: Schemas["AccountCreateDocument"] = {
      data: { type: "accounts", meta: { upsert: ["externalId"] }, attributes: { name, externalId: `TS-${run}-UP` } },
    };
    const up = await api.POST("/api/accounts", { body });
    check(up.response.status === status && up.data?.data.attributes?.name === name, `upsert ${name}: ${up.response.status}`, up.error);
    check(upsertedId === "" || up.data.data.id === upsertedId, "upsert kept the record", up.data);
    upsertedId = up.data.data.id;
  }
  step("upsert by externalId: 201, then 200");

  const blank: Schemas["AccountCreateDocument"] = { data: { type: "accounts", attributes: { name: "" } } };
  const bad = await api.POST("/api/accounts", { body: blank });
  check(bad.response.status === 400 && bad.error, "blank name", bad.data);
  const problem: Schemas["Error"] | undefined = bad.error.errors[0];
  check(problem?.title === "not blank constraint" && problem.source?.pointer === "/data/attributes/name", "typed error", bad.error);
  step("typed error document (400 not blank constraint)");

  const deleted = await api.DELETE("/api/accounts/{id}", { params: { path: { id: ids[2]! } } });
  check(deleted.response.status === 204, `deleteAccount ${deleted.response.status}`, deleted.error);
  const gone = await api.GET("/api/accounts/{id}", { params: { path: { id: ids[2]! } } });
  check(gone.response.status === 404 && gone.error?.errors[0]?.title === "not found http exception", "after delete", gone.error);
  step("deleteAccount, then 404");

  const items: Schemas["AccountBatchDocument"] = {
    data: [
      { type: "accounts", attributes: { name: `TS ${run} batch` } },
      { type: "accounts", attributes: { name: "" } }, // an item error; the others still go in
      { type: "accounts", meta: { upsert: ["externalId"] }, attributes: { name: `TS ${run} batch upsert`, externalId: `TS-${run}-UP` } },
    ],
  };
  const batch = await api.PATCH("/api/accounts", { body: items });
  check(batch.response.status === 202 && batch.data && "type" in batch.data.data, `batchAccounts ${batch.response.status}`, batch.error);
  const operation = batch.data.data as Schemas["AsyncOperation"];
  check(batch.response.headers.get("Content-Location")?.endsWith(`/admin/api/asyncoperations/${operation.id}`), "Content-Location");
  let status: Schemas["AsyncOperation"]["attributes"]["status"] = operation.attributes.status;
  // A small batch can be done by the time its 202 is written: then that answer has the summary.
  let summary: Schemas["AsyncOperation"]["attributes"]["summary"] = operation.attributes.summary;
  for (let i = 0; i < 600 && (status === "new" || status === "running"); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const polled = await api.GET("/api/asyncoperations/{id}", { params: { path: { id: operation.id } } });
    check(polled.data, "getAsyncOperation", polled.error);
    status = polled.data.data.attributes.status;
    summary = polled.data.data.attributes.summary;
  }
  check(status === "success" && summary?.createCount === 1 && summary.updateCount === 1 && summary.errorCount === 1, `operation ${status}`, summary);
  const errors = await api.GET("/api/asyncoperations/{id}/errors", { params: { path: { id: operation.id } } });
  check(errors.data?.data.length === 1 && errors.data.data[0]!.attributes.source?.pointer === "/data/1/attributes/name", "operation errors", errors.data);
  step("batchAccounts, polled to success, with its item error");

  // An atomic request speaks the Atomic Operations extension's media type, in both headers: a
  // client of its own, whose typed answers are that media type's documents.
  const atomicApi = createClient<paths, typeof ATOMIC>({
    baseUrl: `${root}/admin`,
    headers: { Accept: ATOMIC, "Content-Type": ATOMIC, Authorization: `Bearer ${token.data.access_token}` },
  });
  const operations: Schemas["AtomicRequestDocument"] = {
    "atomic:operations": [
      { op: "add", data: { type: "accounts", lid: "ts", attributes: { name: `TS ${run} atomic` } } },
      { op: "update", ref: { type: "accounts", lid: "ts" }, data: { type: "accounts", lid: "ts", attributes: { externalId: `TS-${run}-AT` } } },
    ],
  };
  const atomic = await atomicApi.POST("/api/operations", { body: operations });
  const results = atomic.data?.["atomic:results"];
  check(atomic.response.status === 200 && results?.length === 2, `runAtomicOperations ${atomic.response.status}`, atomic.error);
  check(results[1]?.data?.id === results[0]?.data?.id && results[1]?.data?.attributes?.externalId === `TS-${run}-AT`, "atomic results", results);
  step("runAtomicOperations (add, then update by lid)");
}

main().catch((err: unknown) => {
  console.error(`FAIL ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
