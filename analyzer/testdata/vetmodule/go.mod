module example.com/vetmodule

go 1.26
