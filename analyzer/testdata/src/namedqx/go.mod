module namedqx

go 1.24
