// The `pagination` object of every list answer, from the page asked for and the total the query counted.

export function paginationOf(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
