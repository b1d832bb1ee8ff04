module github.com/normgym/normgym

go 1.26
