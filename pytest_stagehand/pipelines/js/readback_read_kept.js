(read, [key, index, source]) => /*@KEPT*/ && /*@KEPT*/.key === key
  ? read({ target: /*@KEPT*/.elements[index], source }, null) : null
