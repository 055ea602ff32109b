// A module of its own, as a user's would be: spec.Resolve loads its packages.
module example.com/shop

go 1.26
