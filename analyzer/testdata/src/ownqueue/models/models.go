// Package models hides the ORM behind an interface of the service's own,
// implemented by no type of the service: the values are xorm's.
package models

import "xorm.io/xorm"

// Engine is what the models need of the ORM.
type Engine interface {
	Insert(beans ...interface{}) (int64, error)
	Update(bean interface{}, condiBeans ...interface{}) (int64, error)
	Incr(column string, arg ...interface{}) *xorm.Session
}

var x *xorm.Engine

// GetEngine returns the engine.
func GetEngine() Engine { return x }

// Activity is a feed row.
type Activity struct {
	ID     int64
	UserID int64
}

// Insert inserts beans.
func Insert(beans ...interface{}) error {
	_, err := GetEngine().Insert(beans...)
	return err
}

// SetSeen marks an activity seen: sets a column to a value.
func SetSeen(id int64) error {
	_, err := GetEngine().Update(&Activity{ID: id})
	return err
}
