(describe, read, elements) => JSON.parse(read({ target: elements[0] }, null)).line
