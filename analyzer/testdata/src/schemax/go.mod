module schemax

go 1.24
