(read, elements, source) => read({ target: elements[0], source }, null)
