package testmodel

import "strings"

// DatedBareSortKey is orders by status with explicit keys, the GSI's sort
// key a bare {placedAt}#{orderId} template.
const DatedBareSortKey = `table: Dated
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 20}
      status: {type: string, values: [PENDING, SHIPPED]}
      placedAt: time
    keys:
      table: {pk: "ORDER#{orderId}", sk: ORDER}
      GSI1: {pk: "STATUS#{status}", sk: "{placedAt}#{orderId}"}
patterns:
  ByStatus: {query: Order, where: [status], sort: placedAt}
`

// DocsInS3 is documents whose body and notes are kept in S3 (store: s3),
// read only.
const DocsInS3 = `table: Docs
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 36}
      title: {type: string, maxLength: 200}
      body: {type: string, maxLength: 10000000, store: s3}
      notes: {type: string, maxLength: 1000000, store: s3, optional: true}
patterns:
  GetDoc: {get: Doc}
`

// DocsInS3WithWrites is DocsInS3 with a put, two updates and a delete.
const DocsInS3WithWrites = `table: Docs
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 36}
      title: {type: string, maxLength: 200}
      body: {type: string, maxLength: 10000000, store: s3}
      notes: {type: string, maxLength: 1000000, store: s3, optional: true}
writes:
  PutDoc: {put: Doc}
  Retitle: {update: Doc, set: [title]}
  Rebody: {update: Doc, set: [body]}
  DropDoc: {delete: Doc}
patterns:
  GetDoc: {get: Doc}
`

// DocsInS3Examples keeps a document's body (a string), page and thumb
// (binaries) in S3, read by id and by folder, written by a put, an update
// of what S3 keeps and a delete; its examples expect values kept in S3
// (keyplan validate's proof of them, issue 39 part 4). Retitle passes
// folder (with:) so that the model holds keyed synthetic too (KP701), as
// validate keys it on DynamoDB Local.
const DocsInS3Examples = `table: Docs
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 36}
      folder: {type: string, maxLength: 20}
      title: {type: string, maxLength: 200}
      body: {type: string, maxLength: 10000000, store: s3}
      page: {type: blob, maxLength: 5000000, store: s3}
      thumb: {type: binary, maxLength: 1000000, store: s3, optional: true}
writes:
  PutDoc: {put: Doc}
  Retitle: {update: Doc, set: [title], with: [folder]}
  Rebody: {update: Doc, set: [body, page]}
  DropDoc: {delete: Doc}
patterns:
  GetDoc: {get: Doc}
  DocsInFolder: {query: Doc, where: [folder], sort: title}
examples:
  items:
    d1: {Doc: {docId: d1, folder: f, title: a, body: "hello body", page: "cGFnZQ==", thumb: "dGh1bWI="}}
    d2: {Doc: {docId: d2, folder: f, title: b, body: second, page: "eA=="}}
  expect:
    - {pattern: DocsInFolder, params: {folder: f}, items: [d1, d2], values: {d1: {body: "hello body", page: "cGFnZQ==", thumb: "dGh1bWI="}, d2: {body: second}}}
    - {pattern: GetDoc, params: {docId: d2}, items: [d2], values: {d2: {body: second, page: "eA=="}}}
`

// DocsInline is documents whose body is kept in the item; its store: s3
// successor moves it to S3.
const DocsInline = `table: Docs
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 36}
      title: {type: string, maxLength: 200}
      body: {type: string, maxLength: 100000}
writes:
  PutDoc: {put: Doc}
patterns:
  GetDoc: {get: Doc}
`

// FilesInline keeps a file's text (a string) and its scan (a binary) in
// the item; FilesInS3 (the next model) keeps both in S3, with a higher
// maxLength.
const FilesInline = `table: Files
entities:
  File:
    id: [fileId]
    attributes:
      fileId: {type: string, maxLength: 36}
      name: {type: string, maxLength: 100}
      text: {type: string, maxLength: 100000, optional: true}
      scan: {type: blob, maxLength: 100000, optional: true}
writes:
  PutFile: {put: File}
patterns:
  GetFile: {get: File}
`

// FilesInS3 is FilesInline with text and scan kept in S3 (store: s3).
var FilesInS3 = strings.NewReplacer(
	"text: {type: string, maxLength: 100000,", "text: {type: string, maxLength: 1000000, store: s3,",
	"scan: {type: blob, maxLength: 100000,", "scan: {type: blob, maxLength: 1000000, store: s3,").Replace(FilesInline)

// DocsInlineSynthetic is DocsInline keyed synthetically, without its write.
const DocsInlineSynthetic = `indexKeys: synthetic
table: Docs
entities:
  Doc:
    id: [docId]
    attributes:
      docId: {type: string, maxLength: 36}
      title: {type: string, maxLength: 200}
      body: {type: string, maxLength: 100000}
patterns:
  GetDoc: {get: Doc}
`

// ErringUsers is one pattern served (GetUser), one no index serves
// (ByEmail, KP101) and one a GSI serves with a strongly consistent read
// DynamoDB refuses (ByTeam, KP102), with examples.
const ErringUsers = `table: Users
entities:
  User:
    id: [userId]
    attributes: {userId: {type: string, maxLength: 9}, email: {type: string, maxLength: 20}, team: {type: string, maxLength: 9}}
    keys:
      table: {pk: "USER#{userId}", sk: USER}
      GSI1: {pk: "TEAM#{team}", sk: "USER#{userId}"}
patterns:
  GetUser: {get: User}
  ByEmail: {get: User, where: [email], unique: true}
  ByTeam: {query: User, where: [team], consistent: true}
examples:
  items:
    ada: {User: {userId: u1, email: ada@example.com, team: t1}}
  expect:
    - pattern: GetUser
      params: {userId: u1}
      items: [ada]
    - pattern: ByEmail
      params: {email: ada@example.com}
      items: [ada]
    - pattern: ByTeam
      params: {team: t1}
      items: [ada]
`

// ErringUsersWithWrite is ErringUsers with a write (AddUser) and an example
// step that runs it.
const ErringUsersWithWrite = `table: Users
entities:
  User:
    id: [userId]
    attributes: {userId: {type: string, maxLength: 9}, email: {type: string, maxLength: 20}, team: {type: string, maxLength: 9}}
    keys:
      table: {pk: "USER#{userId}", sk: USER}
      GSI1: {pk: "TEAM#{team}", sk: "USER#{userId}"}
patterns:
  GetUser: {get: User}
  ByEmail: {get: User, where: [email], unique: true}
  ByTeam: {query: User, where: [team], consistent: true}
writes:
  AddUser: {put: User, if: absent}
examples:
  items:
    ada: {User: {userId: u1, email: ada@example.com, team: t1}}
  steps:
    - write: AddUser
      params: {userId: u2, email: bob@example.com, team: t1}
      item: bob
  expect:
    - pattern: GetUser
      params: {userId: u2}
      items: [bob]
    - pattern: ByEmail
      params: {email: ada@example.com}
      items: [ada]
    - pattern: ByTeam
      params: {team: t1}
      items: [ada, bob]
`

// GenPairQuery is one entity read by a query on its id and a second
// attribute.
const GenPairQuery = `table: Gen
entities:
  A:
    id: [aId]
    attributes:
      aId: {type: string, maxLength: 20}
      q: {type: string, maxLength: 20}
patterns:
  P: {query: A, where: [aId, q]}
`

// GenUniqueGet is one entity read by an immutable attribute (a query sorted
// by id, a unique get) and by id.
const GenUniqueGet = `table: Gen
entities:
  A:
    id: [aId]
    attributes:
      aId: {type: string, maxLength: 20}
      p: {type: string, maxLength: 20, immutable: true}
patterns:
  P0: {query: A, where: [p], sort: aId}
  P2: {get: A, where: [p], unique: true}
  GetA: {get: A}
`

// LiveOrders is orders with explicit keys, read by id and by status sorted
// by placedAt.
const LiveOrders = `table: Live
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 20}
      status: {type: string, values: [PENDING, SHIPPED]}
      placedAt: time
      total: {type: number, min: 0, max: 99999}
    keys:
      table: {pk: "ORDER#{orderId}", sk: ORDER}
      GSI1: {pk: "STATUS#{status}", sk: "{placedAt}#{orderId}"}
patterns:
  GetOrder: {get: Order}
  ByStatus: {query: Order, where: [status], sort: placedAt, returns: [total]}
`

// NotesRaced is notes with an immutable category, read by owner sorted by
// score; NotesRacedRenamed is its successor.
const NotesRaced = `
table: Notes
entities:
  Note:
    id: [noteId]
    attributes:
      noteId: {type: string, maxLength: 40}
      ownerId: {type: string, maxLength: 40}
      category: {type: string, values: [home, work, misc], immutable: true}
      subject: {type: string, maxLength: 200}
      memo: {type: string, maxLength: 200, optional: true}
      score: {type: number, min: 0, max: 1000}
patterns:
  GetNote: {get: Note}
  OwnerNotes: {query: Note, where: [ownerId], sort: score}
`

// NotesRacedRenamed renames NotesRaced's subject, memo and score (the sort
// key of OwnerNotes) and reads notes by category: one new GSI.
const NotesRacedRenamed = `
table: Notes
entities:
  Note:
    id: [noteId]
    attributes:
      noteId: {type: string, maxLength: 40}
      ownerId: {type: string, maxLength: 40}
      category: {type: string, values: [home, work, misc], immutable: true}
      title: {type: string, maxLength: 200, renamedFrom: subject}
      note: {type: string, maxLength: 200, optional: true, renamedFrom: memo}
      points: {type: number, min: 0, max: 1000, renamedFrom: score}
patterns:
  GetNote: {get: Note}
  OwnerNotes: {query: Note, where: [ownerId], sort: points}
  NotesByCategory: {query: Note, where: [category]}
`

// NotesRenamed renames NotesToRename's three attributes (one optional, one
// a number).
const NotesRenamed = `
table: Notes
entities:
  Note:
    id: [noteId]
    attributes:
      noteId: {type: string, maxLength: 40}
      ownerId: {type: string, maxLength: 40}
      title: {type: string, maxLength: 200, renamedFrom: subject}
      note: {type: string, maxLength: 200, optional: true, renamedFrom: memo}
      points: {type: number, min: 0, max: 1000, renamedFrom: score}
patterns:
  GetNote: {get: Note}
  OwnerNotes: {query: Note, where: [ownerId], returns: [title, note, points]}
`

// NotesSynthetic is notes keyed synthetically, read by owner sorted by
// createdAt.
const NotesSynthetic = `
table: Notes
indexKeys: synthetic
entities:
  Note:
    id: [noteId]
    attributes:
      noteId: {type: string, maxLength: 40}
      ownerId: {type: string, maxLength: 40}
      subject: {type: string, maxLength: 200}
      createdAt: time
patterns:
  GetNote: {get: Note}
  OwnerNotes: {query: Note, where: [ownerId], sort: createdAt}
`

// NotesToRename is notes read by owner, returning the three attributes
// NotesRenamed renames.
const NotesToRename = `
table: Notes
entities:
  Note:
    id: [noteId]
    attributes:
      noteId: {type: string, maxLength: 40}
      ownerId: {type: string, maxLength: 40}
      subject: {type: string, maxLength: 200}
      memo: {type: string, maxLength: 200, optional: true}
      score: {type: number, min: 0, max: 1000}
patterns:
  GetNote: {get: Note}
  OwnerNotes: {query: Note, where: [ownerId], returns: [subject, memo, score]}
`

// Orders is a shop's orders read by id, by customer and by status, each
// sorted by placedAt (no indexKeys: a test prepends its own).
const Orders = `table: Shop
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 40}
      customerId: {type: string, maxLength: 40}
      status: {type: string, values: [open, shipped]}
      placedAt: time
patterns:
  GetOrder: {get: Order}
  CustomerOrders: {query: Order, where: [customerId], sort: placedAt}
  OrdersByStatus: {query: Order, where: [status], sort: placedAt}
`

// OrdersAndReturnsNative is Orders keyed natively, with returns that carry
// the orders' status, placedAt and orderId.
const OrdersAndReturnsNative = `
table: Shop
indexKeys: native
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 40}
      customerId: {type: string, maxLength: 40}
      status: {type: string, values: [open, shipped]}
      placedAt: time
  Return:
    id: [returnId]
    attributes:
      returnId: {type: string, maxLength: 40}
      orderId: {type: string, maxLength: 40}
      status: {type: string, values: [open, shipped]}
      placedAt: time
patterns:
  GetOrder: {get: Order}
  GetReturn: {get: Return}
  CustomerOrders: {query: Order, where: [customerId], sort: placedAt}
  OrdersByStatus: {query: Order, where: [status], sort: placedAt}
`

// OrdersToEdit is a shop's orders; the first %s is where edits add
// attributes, the second where they add patterns.
const OrdersToEdit = `table: Shop
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 40}
      customerId: {type: string, maxLength: 40}
      status: {values: [PENDING, PAID, SHIPPED]}
      total: {type: number, min: 0, max: 99999}
      createdAt: time
%s
patterns:
  GetOrder: {get: Order}
  CustomerOrders: {query: Order, where: [customerId], sort: createdAt desc}
%s`

// OrdersWithSubject is Orders (with a leading newline) with a subject
// attribute.
const OrdersWithSubject = `
table: Shop
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 40}
      customerId: {type: string, maxLength: 40}
      status: {type: string, values: [open, shipped]}
      subject: {type: string, maxLength: 80}
      placedAt: time
patterns:
  GetOrder: {get: Order}
  CustomerOrders: {query: Order, where: [customerId], sort: placedAt}
  OrdersByStatus: {query: Order, where: [status], sort: placedAt}
`

// ShardedOrders is pending orders read newest first from a 4-way sharded
// GSI.
const ShardedOrders = `table: Shop
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 20}
      status: {type: string, values: [PENDING, SHIPPED]}
      createdAt: time
patterns:
  GetOrder: {get: Order}
  Pending:  {query: Order, where: [status], sort: createdAt desc, limit: 5, shards: 4}
`

// SparseOrders is a merchant's pending orders on a sparse GSI (when: status
// PENDING).
const SparseOrders = `table: Shop
entities:
  Order:
    id: [orderId]
    attributes:
      orderId: {type: string, maxLength: 20}
      merchantId: {type: string, maxLength: 20}
      status: {type: string, values: [PENDING, SHIPPED]}
      createdAt: time
    keys:
      table: {pk: "ORDER#{orderId}", sk: ORDER}
      GSI2: {pk: "MERCHANT#{merchantId}#STATUS#PENDING", sk: "{createdAt}#{orderId}", when: {status: PENDING}}
patterns:
  GetOrder: {get: Order}
  PendingOrders: {query: Order, where: [merchantId], filter: {status: PENDING}, sort: createdAt}
`
