// The short, fixed list of storage failures; the registry translates them into API errors once.
export type StorageErrorCode = 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Expired' | 'Closed' | 'TooLarge' | 'Timeout';

export class StorageError extends Error {
  constructor(readonly code: StorageErrorCode, message: string, readonly currentRevision?: number) {
    super(message);
  }
}
