package shm

import (
	"encoding/binary"
	"hash/crc32"
)

// Message checksums (HYMPI_CHECKSUM=1). The ring protocol validates every
// field that indexes memory, but a payload is just bytes and an envelope
// just numbers: a stray write into a cell or a slot is delivered as data, or
// delivers a message to the wrong receive. When a job asks for it, the
// sender stores a CRC-32C of each descriptor (envelope and eager payload)
// beside it and the receiver checks it, so such a write becomes an error. CRC-32C is computed by a dedicated
// instruction on amd64 and arm64, several GB/s per core.
//
// Where the sum lives: in a descriptor slot, the first four bytes of the
// inline area, which only KindInline fills with payload; a KindInline
// descriptor keeps it in the four bytes after the cell index, which only the
// cell kinds and the address kinds use. In a collective slot, the reserved
// word, which is zero when the job does not checksum. Both sides of a job
// agree on the setting (every rank inherits the launcher's environment), so
// nothing in the slot says whether a sum is present, and a job that does not
// checksum never touches these bytes.
const (
	descSumInline = descExt + 4
	descSumOther  = DescHeaderSize
)

func sumOffset(slot []byte) int {
	if Kind(slot[descKind]) == KindInline {
		return descSumInline
	}
	return descSumOther
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MessageSum is the checksum a descriptor carries: its payload (nil for
// the kinds without one) and every envelope field, so that a stray write
// that re-addresses a message (another tag, context, length, cell, address
// or request) is caught as surely as one that changes its bytes. Fields
// are taken as DecodeDesc returns them, so sender and receiver agree.
func MessageSum(d *Desc, payload []byte) uint32 {
	c := *d
	switch c.Kind {
	case KindInline, KindControl:
		c.Cell, c.Addr, c.MsgLen = 0, 0, uint64(c.FragLen)
		if c.Flags&FlagSync == 0 {
			c.ReqID = 0
		}
	case KindRTS, KindNack:
		c.Cell = 0
	default:
		c.Addr = 0
	}
	var env [44]byte
	le := binary.LittleEndian
	env[0], env[1] = byte(c.Kind), c.Flags
	le.PutUint32(env[4:], c.Ctx)
	le.PutUint32(env[8:], uint32(c.Tag))
	le.PutUint32(env[12:], c.FragLen)
	le.PutUint32(env[16:], c.Cell)
	le.PutUint64(env[20:], c.Addr)
	le.PutUint64(env[28:], c.MsgLen)
	le.PutUint64(env[36:], c.ReqID)
	return crc32.Update(crc32.Checksum(env[:], castagnoli), castagnoli, payload)
}

// CollSumOf is the checksum a collective slot carries: envelope and payload.
func CollSumOf(d CollDesc, payload []byte) uint32 {
	var env [12]byte
	le := binary.LittleEndian
	le.PutUint32(env[0:], d.Ctx)
	le.PutUint32(env[4:], uint32(d.Tag))
	le.PutUint32(env[8:], d.Len)
	return crc32.Update(crc32.Checksum(env[:], castagnoli), castagnoli, payload)
}

// SetDescSum stores sum in an encoded descriptor slot before it is
// published (after EncodeDesc, which sets the kind, and the inline payload).
func SetDescSum(slot []byte, sum uint32) {
	binary.LittleEndian.PutUint32(slot[sumOffset(slot):], sum)
}

// DescSum is the sum the sender stored in a published descriptor slot.
func DescSum(slot []byte) uint32 { return binary.LittleEndian.Uint32(slot[sumOffset(slot):]) }

// SetCollSum stores sum in a collective slot after EncodeColl.
func SetCollSum(slot []byte, sum uint32) { binary.LittleEndian.PutUint32(slot[collRsvd:], sum) }

// CollSum is the sum the sender stored in a published collective slot.
func CollSum(slot []byte) uint32 { return binary.LittleEndian.Uint32(slot[collRsvd:]) }
