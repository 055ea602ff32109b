// Package events holds a message type of another team whose JSON names are
// not Go identifiers.
package events

// Shipped is named by message.type.
type Shipped struct {
	OrderID  string `json:"order-id"`
	Carrier  string `json:"carrier.name"`
	Weight   int64  `json:"weightGrams"`
	Tracking string `json:"tracking%code"` // a JSON name the spec cannot name
	Bad      string `json:"bad\\name"`     // encoding/json rejects the tag: its JSON name is Bad
}

// Parcel has a key field whose JSON name has no Go form (_2nd gives 2nd):
// the presence check names it F<n>, and F1 is taken by another field.
type Parcel struct {
	F1     string `json:"F1"`
	Second string `json:"_2nd"`
}
