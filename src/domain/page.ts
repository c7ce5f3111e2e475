/** A page of a list: at most `limit` items after skipping `offset` (discovery listings, datasource readings). */
export interface Page {
  limit: number;
  offset: number;
}
