// A module of its own, as a user's would be: spec.Resolve loads its packages.
module example.com/jsonnames

go 1.26
