(describe, elements) => JSON.stringify(elements.length === 1
  ? { ...describe(elements[0]), kept: (/*@KEEP*/)([elements[0]]) }
  : { count: elements.length })
