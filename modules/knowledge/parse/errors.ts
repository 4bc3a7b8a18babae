// Why a document could not be turned into Markdown. The message is a sentence for people: the processing job stores it
// on the document's `error`, so it never carries a stack trace or a library's internal wording.

export type DocumentParseErrorCode =
  | 'unsupported_document' // a type we do not read
  | 'unreadable_document' // damaged, encrypted, not what its type says, or not valid text
  | 'empty_document' // readable, but with no text (a scanned PDF, an empty file)
  | 'document_too_complex'; // over a bound: too long to convert, nested too deeply, expands too much

export class DocumentParseError extends Error {
  constructor(
    readonly code: DocumentParseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DocumentParseError';
  }
}

/** A media type we do not convert, or a file whose type we cannot tell. */
export class UnsupportedDocument extends DocumentParseError {
  constructor(message: string) {
    super('unsupported_document', message);
    this.name = 'UnsupportedDocument';
  }
}
